// Moved to campaigns/compose.ts (delivery depends on campaigns, not back). Kept only while
// tracking/routes.ts imports these from here; remove once it imports campaigns/compose.ts.
export { layoutFor, renderEnv, toRenderSubscriber } from '../campaigns/compose.ts';
