import type { ModuleManifest } from '../kernel/module';
import { authModule } from './auth';
import { territoriesModule } from './territories';
import { campaignModule } from './campaign';
import { audienceModule } from './audience';
import { qrModule } from './qr';
import { gotvModule } from './gotv';
import { whatsappModule } from './whatsapp';
import { emailModule } from './email';
import { socialModule } from './social';
import { popularityModule } from './popularity';
import { financeModule } from './finance';
import { noticesModule } from './notices';
import { agendaModule } from './agenda';
import { volunteersModule } from './volunteers';
import { pqrsModule } from './pqrs';
import { dashboardModule } from './dashboard';

/** Every module of the process. The app, the ORM and the workers are all built from this list. */
export const modules: ModuleManifest[] = [
  authModule,
  territoriesModule,
  campaignModule,
  audienceModule,
  qrModule,
  gotvModule,
  whatsappModule,
  emailModule,
  socialModule,
  popularityModule,
  financeModule,
  noticesModule,
  agendaModule,
  volunteersModule,
  pqrsModule,
  dashboardModule,
];

export const allEntities = modules.flatMap((module) => module.entities);
