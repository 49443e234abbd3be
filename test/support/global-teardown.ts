import { runTeardown } from './global-state.ts';

export default async function globalTeardown(): Promise<void> {
  await runTeardown();
}
