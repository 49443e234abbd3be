/**
 * The services both processes need, composed in one place: the API's container and the worker build them with
 * this function, so the generation steps an activity runs are the same service, over the same brand service
 * and republish port, as the one the API is composed with (no stubbed second copy in the worker).
 */
import { createBrandService } from './brand/brand.service.ts';
import type { RepublishPort } from './campaigns/campaigns.service.ts';
import type { CreativeStudio } from './creative/studio.ts';
import { createGenerationService } from './generation/generation.service.ts';

export function createCreativeServices(deps: { studio: CreativeStudio; republish: RepublishPort }) {
  const brand = createBrandService({ republish: deps.republish });
  return { brand, generation: createGenerationService({ studio: deps.studio, brand }) };
}

export type CreativeServices = ReturnType<typeof createCreativeServices>;
