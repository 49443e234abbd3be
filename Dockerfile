# One image for the API and the worker (they differ only in their command; see docker-compose.yml).
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
USER node
EXPOSE 3000
CMD ["node", "src/main.ts"]
