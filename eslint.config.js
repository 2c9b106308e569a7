import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The engine is plain TypeScript: only lib/aws and the local runtime may talk to AWS. */
const awsSdkImports = {
  patterns: [
    {
      group: ['@aws-sdk/*', '@smithy/*', 'aws-sdk', '@aws-lambda-powertools/*', 'aws-cdk-lib', 'aws-cdk-lib/*'],
      message: 'The engine must not import AWS packages; put AWS code in lib/aws behind a port.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', 'dist/**', 'bench/out/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Plain Node scripts (CI helpers, the CLI launcher) run outside TypeScript's type checking.
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['lib/engine/**/*.ts', 'lib/domain/**/*.ts', 'lib/api/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', awsSdkImports] },
  },
  {
    // The handler cores wire Powertools around the engine, but reach AWS only through lib/aws.
    files: ['lib/functions/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@aws-sdk/*', '@smithy/*', 'aws-sdk'], message: 'Put AWS SDK code in lib/aws behind a port.' }] }],
    },
  },
);
