import type { SocialConfig } from '../../../config';
import type { Platform, SocialConnector } from './connector';
import { FacebookConnector, InstagramConnector } from './graph';
import { systemClock, type Clock } from './http';
import { XConnector } from './x';
import { YouTubeConnector } from './youtube';

export * from './connector';
export { FacebookConnector, InstagramConnector, regainAccessAt } from './graph';
export { systemClock, type Clock } from './http';
export { XConnector } from './x';
export { nextMidnightIn, YouTubeConnector } from './youtube';

/** Platforms read through an API; TikTok is import-only because no official API returns a competitor's posts. */
export type ApiPlatform = Exclude<Platform, 'tiktok'>;

/** One client per API platform; those without credentials say `configured: false` and refuse to fetch. */
export function createConnectors(config: SocialConfig, clock: Clock = systemClock): Record<ApiPlatform, SocialConnector> {
  const timeout = config.fetchTimeoutSeconds;
  return {
    youtube: new YouTubeConnector(config.youtube, timeout, clock),
    x: new XConnector(config.x, timeout, clock),
    facebook: new FacebookConnector(config.graph, timeout, clock),
    instagram: new InstagramConnector(config.graph, timeout, clock),
  };
}
