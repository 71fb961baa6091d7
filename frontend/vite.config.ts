import { defineConfig } from "vite";

// The built files are shipped inside the Python package (no Node.js needed to play).
export default defineConfig({
  base: "/",
  build: {
    outDir: "../src/paohuzi/server/static",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
  },
});
