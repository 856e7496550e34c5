import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.lms-data/', 'bin/lms.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
      ],
    },
  },
  {
    // Tool configuration files must default-export their config.
    files: ['*.config.ts', '*.config.js'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // Only shared/config.ts reads the environment; everything else receives config.
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/config.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env' }],
    },
  },
)
