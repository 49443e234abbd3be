/** The names of a network's channel tools: one rule for the tools (`tools/channel-tools.ts`) and the profiles. */
import type { ChannelNetwork } from '../domain/channels/channel-networks.ts';

export function channelToolNames(network: ChannelNetwork): { read: string; write: string } {
  return { read: `query_${network}`, write: `manage_${network}` };
}
