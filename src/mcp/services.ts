import type { Container } from '../container.ts';

/** The domain services tool actions may call (the container's service set). */
export type McpServices = Container['services'];
