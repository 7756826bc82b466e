// The part of Alpine's API the admin uses (the CSP build ships no types).
declare module '@alpinejs/csp' {
  const Alpine: {
    data(name: string, component: () => object): void;
    start(): void;
  };
  export default Alpine;
}

// Stylesheets imported by islands are bundled by esbuild into the island's CSS file.
declare module '*.css';

// The page scripts, gathered by the build (scripts/build.mjs): each module's exports.
declare module 'listmgr:admin-scripts' {
  const scripts: Record<string, unknown>[];
  export default scripts;
}
