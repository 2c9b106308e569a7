import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    coverage: {
      // `npm run coverage`: which lines and branches of the shipped code no test runs.
      provider: 'v8',
      include: ['lib/**/*.ts', 'functions/**/*.ts', 'infra/**/*.ts', 'cli/**/*.ts'],
      reporter: ['text-summary', 'json-summary', 'json'],
      reportsDirectory: 'coverage',
    },
  },
});
