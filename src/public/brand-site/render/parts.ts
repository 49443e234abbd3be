/** Accumulates a stored page: literal text merged into as few strings as possible, with slots in between. */
import type { PagePart, PageSlot } from '../site-model.ts';

export class PartsBuilder {
  private readonly parts: PagePart[] = [];
  private pending = '';

  text(value: string): this {
    this.pending += value;
    return this;
  }

  slot(slot: PageSlot): this {
    if (this.pending) this.parts.push(this.pending);
    this.pending = '';
    this.parts.push({ campaignId: slot.campaignId, zoneId: slot.zoneId, surfaceId: slot.surfaceId });
    return this;
  }

  build(): PagePart[] {
    return this.pending ? [...this.parts, this.pending] : [...this.parts];
  }
}
