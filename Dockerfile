# One image for the API and the worker (they differ only in their command; see docker-compose.yml and
# docs/deployment.md).
# Node 24 runs the TypeScript sources directly (type stripping), so there is no transpile step; the workflow
# bundle and the inspector widget are prebuilt so neither process runs webpack at boot.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts=false
COPY . .
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/src ./src
COPY --from=build /app/activities ./activities
COPY --from=build /app/workflows ./workflows
COPY --from=build /app/bin ./bin
# The workflow bundle and the inspector widget's bundle (found by its content key, never rebuilt at run time).
COPY --from=build /app/dist ./dist
ENV WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
# The processes run unprivileged (`node`, uid 1000) and write only to /tmp (ffmpeg's work files) and DATA_DIR
# (a local media store when MEDIA_STORE=local, the CLI's files), which that user owns. /app stays root's.
RUN mkdir -p /var/lib/campaign-platform && chown node:node /var/lib/campaign-platform
ENV DATA_DIR=/var/lib/campaign-platform
USER node
EXPOSE 3000
CMD ["node", "src/main.ts"]
