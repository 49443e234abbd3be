/** What a render job is asked to make, and what it produced. Shared by the tool, the workflow and the activity. */
export type StillFormat = 'landscape' | 'square' | 'story';

export type RenderRequest =
  | { mode: 'video'; templateId: string; campaignId: string | null; variantId: string | null }
  | { mode: 'campaign'; campaignId: string }
  | { mode: 'still'; campaignId: string; variantId: string; format: StillFormat };

export interface RenderOutput {
  [key: string]: unknown;
  key: string;
  url: string;
  mimeType: 'video/mp4' | 'image/png';
  bytes: number;
  sha256: string;
  width: number;
  height: number;
  /** Videos only. */
  durationSeconds: number | null;
}

export const STILL_SIZES: Record<StillFormat, { width: number; height: number }> = {
  landscape: { width: 1200, height: 630 },
  square: { width: 1080, height: 1080 },
  story: { width: 1080, height: 1920 },
};
