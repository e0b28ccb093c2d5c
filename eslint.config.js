import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    files: ['bench/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // The web interface's browser modules (served as they are, no build step).
    files: ['src/web/assets/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'window', 'document', 'location', 'history', 'sessionStorage', 'localStorage', 'fetch', 'setTimeout', 'clearTimeout',
          'requestAnimationFrame', 'cancelAnimationFrame', 'matchMedia', 'URL', 'URLSearchParams', 'Event', 'Element', 'Node',
          'FileReader', 'TextDecoderStream', 'AbortController',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
