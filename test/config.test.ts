import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_API_URL, DEFAULT_YOUTUBE_API_URL, loadConfig } from '../src/config.js';

const load = (env: Record<string, string>, flags = {}) => loadConfig({ env: { GURU_DATA_DIR: '/tmp/guru-config-test', ...env }, flags });

describe('backend settings', () => {
  it('defaults to the local engine and the hosted API', () => {
    const config = load({});
    expect(config.backend).toBe('local');
    expect(config.apiUrl).toBe(DEFAULT_API_URL);
    expect(DEFAULT_API_URL).toBe('https://api.gurubase.io/api/v1');
    expect(config.apiKey).toBeUndefined();
  });

  it('reads the remote backend from the environment, without a trailing slash', () => {
    const config = load({
      GURU_BACKEND: 'remote',
      GURU_API_URL: 'http://127.0.0.1:8787/api/v1/',
      GURU_API_KEY: 'guru_secret',
      GURU_DEFAULT_GURU: 'docs',
    });
    expect(config).toMatchObject({ backend: 'remote', apiUrl: 'http://127.0.0.1:8787/api/v1', apiKey: 'guru_secret', defaultGuru: 'docs' });
  });

  it('lets flags choose the backend and the URL over the environment', () => {
    const config = load(
      { GURU_BACKEND: 'local', GURU_API_URL: 'http://a.example/api/v1', GURU_API_KEY: 'k' },
      { backend: 'remote', apiUrl: 'http://b.example/api/v1' },
    );
    expect(config).toMatchObject({ backend: 'remote', apiUrl: 'http://b.example/api/v1' });
  });

  it('requires a key for the remote backend, saying which variable', () => {
    expect(() => load({ GURU_BACKEND: 'remote' })).toThrow(ConfigError);
    expect(() => load({ GURU_BACKEND: 'remote' })).toThrow(/apiKey \(GURU_API_KEY\): required when the backend is remote/);
    expect(() => load({ GURU_BACKEND: 'remote', GURU_API_KEY: '   ' })).toThrow(/GURU_API_KEY/);
  });

  it('refuses an unknown backend and a URL that is not http(s)', () => {
    expect(() => load({ GURU_BACKEND: 'cloud' })).toThrow(/backend \(GURU_BACKEND\)/);
    expect(() => load({ GURU_API_URL: 'ftp://example.com/api/v1' })).toThrow(/apiUrl \(GURU_API_URL\): must be an http:\/\/ or https:\/\/ URL/);
    expect(() => load({ GURU_API_URL: 'not a url' })).toThrow(/GURU_API_URL/);
  });

  it('never repeats the key in its errors', () => {
    try {
      load({ GURU_BACKEND: 'remote', GURU_API_KEY: 'guru_secret', GURU_API_URL: 'nope' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toContain('GURU_API_URL');
      expect((error as Error).message).not.toContain('guru_secret');
    }
  });
});

describe('MCP over HTTP', () => {
  it('requires no key on loopback unless GURU_MCP_REQUIRE_KEY says so', () => {
    expect(load({}).mcpRequireKey).toBe(false);
    expect(load({ GURU_MCP_REQUIRE_KEY: '1' }).mcpRequireKey).toBe(true);
    expect(load({ GURU_MCP_REQUIRE_KEY: 'true' }).mcpRequireKey).toBe(true);
    expect(load({ GURU_MCP_REQUIRE_KEY: '0' }).mcpRequireKey).toBe(false);
    expect(() => load({ GURU_MCP_REQUIRE_KEY: 'maybe' })).toThrow(/mcpRequireKey \(GURU_MCP_REQUIRE_KEY\)/);
  });
});

describe('embeddings and YouTube settings', () => {
  it('are off by default', () => {
    const config = load({});
    expect(config.embeddingsUrl).toBeUndefined();
    expect(config.embeddingsModel).toBeUndefined();
    expect(config.embeddingsApiKey).toBeUndefined();
    expect(config.youtubeUrl).toBeUndefined();
  });

  it('read the embeddings endpoint, model and key from the environment, without a trailing slash', () => {
    const config = load({
      GURU_EMBEDDINGS_URL: 'http://localhost:11434/v1/',
      GURU_EMBEDDINGS_MODEL: 'nomic-embed-text',
      GURU_EMBEDDINGS_API_KEY: 'sk-embed',
      GURU_YOUTUBE_URL: 'http://127.0.0.1:9000/',
    });
    expect(config).toMatchObject({
      embeddingsUrl: 'http://localhost:11434/v1',
      embeddingsModel: 'nomic-embed-text',
      embeddingsApiKey: 'sk-embed',
      youtubeUrl: 'http://127.0.0.1:9000',
    });
  });

  it('take the key from the config file too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-config-file-'));
    try {
      const file = join(dir, 'settings.json');
      writeFileSync(file, JSON.stringify({ embeddingsUrl: 'https://api.openai.com/v1', embeddingsModel: 'text-embedding-3-small', embeddingsApiKey: 'sk-file' }));
      const config = loadConfig({ env: { GURU_DATA_DIR: dir }, configFile: file });
      expect(config).toMatchObject({ embeddingsUrl: 'https://api.openai.com/v1', embeddingsModel: 'text-embedding-3-small', embeddingsApiKey: 'sk-file' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('require a model with an embeddings URL, and a URL with a model, naming the variables', () => {
    expect(() => load({ GURU_EMBEDDINGS_URL: 'https://api.openai.com/v1' })).toThrow(
      /embeddingsModel \(GURU_EMBEDDINGS_MODEL\): required when GURU_EMBEDDINGS_URL is set/,
    );
    expect(() => load({ GURU_EMBEDDINGS_MODEL: 'nomic-embed-text' })).toThrow(/embeddingsUrl \(GURU_EMBEDDINGS_URL\): required when GURU_EMBEDDINGS_MODEL is set/);
  });

  it('refuse URLs that are not http(s), without repeating the key', () => {
    try {
      load({ GURU_EMBEDDINGS_URL: 'ftp://models.example/v1', GURU_EMBEDDINGS_MODEL: 'm', GURU_EMBEDDINGS_API_KEY: 'sk-secret' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/embeddingsUrl \(GURU_EMBEDDINGS_URL\): must be an http:\/\/ or https:\/\/ API root/);
      expect((error as Error).message).not.toContain('sk-secret');
    }
    expect(() => load({ GURU_YOUTUBE_URL: 'youtube' })).toThrow(/youtubeUrl \(GURU_YOUTUBE_URL\)/);
  });
});

describe('language model settings', () => {
  it('are off by default', () => {
    const config = load({});
    expect(config.llmUrl).toBeUndefined();
    expect(config.llmModel).toBeUndefined();
    expect(config.llmApiKey).toBeUndefined();
  });

  it('read the endpoint, model and key from the environment, without a trailing slash', () => {
    expect(load({ GURU_LLM_URL: 'http://localhost:11434/v1/', GURU_LLM_MODEL: 'llama3.2', GURU_LLM_API_KEY: 'sk-llm' })).toMatchObject({
      llmUrl: 'http://localhost:11434/v1',
      llmModel: 'llama3.2',
      llmApiKey: 'sk-llm',
    });
  });

  it('take the key from the config file, and the flags over the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-config-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ llmUrl: 'https://api.openai.com/v1', llmModel: 'gpt-4o-mini', llmApiKey: 'sk-file' }));
      const config = loadConfig({
        configFile: file,
        env: { GURU_DATA_DIR: '/tmp/guru-config-test', GURU_LLM_MODEL: 'gpt-4.1-mini' },
        flags: { llmUrl: 'http://127.0.0.1:8000/v1', llmModel: 'qwen2.5' },
      });
      expect(config).toMatchObject({ llmUrl: 'http://127.0.0.1:8000/v1', llmModel: 'qwen2.5', llmApiKey: 'sk-file' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('send no images unless GURU_LLM_IMAGES (config file llmImages, flag --llm-images) says the model reads them', () => {
    const model = { GURU_LLM_URL: 'http://localhost:11434/v1', GURU_LLM_MODEL: 'llava' };
    expect(load(model).llmImages).toBe(false);
    expect(load({ ...model, GURU_LLM_IMAGES: '1' }).llmImages).toBe(true);
    expect(load({ ...model, GURU_LLM_IMAGES: '0' }).llmImages).toBe(false);
    expect(() => load({ ...model, GURU_LLM_IMAGES: 'sometimes' })).toThrow(/llmImages \(GURU_LLM_IMAGES\)/);
    const dir = mkdtempSync(join(tmpdir(), 'guru-config-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ llmImages: true }));
      expect(loadConfig({ configFile: file, env: { GURU_DATA_DIR: '/tmp/guru-config-test', ...model } }).llmImages).toBe(true);
      expect(loadConfig({ configFile: file, env: { GURU_DATA_DIR: '/tmp/guru-config-test', ...model, GURU_LLM_IMAGES: 'no' } }).llmImages).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(loadConfig({ env: { GURU_DATA_DIR: '/tmp/guru-config-test', ...model }, flags: { llmImages: true } }).llmImages).toBe(true);
  });

  it('time the rewording and picking steps (2.5 s and 4 s unless set; 0 turns a step off), refusing what is not a count of milliseconds', () => {
    const model = { GURU_LLM_URL: 'http://localhost:11434/v1', GURU_LLM_MODEL: 'llama3.2' };
    expect(load(model)).toMatchObject({ llmRewriteTimeoutMs: 2_500, llmPickTimeoutMs: 4_000 });
    expect(load({ ...model, GURU_LLM_REWRITE_TIMEOUT_MS: '0', GURU_LLM_PICK_TIMEOUT_MS: '1500' })).toMatchObject({ llmRewriteTimeoutMs: 0, llmPickTimeoutMs: 1_500 });
    expect(() => load({ ...model, GURU_LLM_REWRITE_TIMEOUT_MS: '-1' })).toThrow(/llmRewriteTimeoutMs \(GURU_LLM_REWRITE_TIMEOUT_MS\)/);
    expect(() => load({ ...model, GURU_LLM_PICK_TIMEOUT_MS: 'soon' })).toThrow(/llmPickTimeoutMs \(GURU_LLM_PICK_TIMEOUT_MS\)/);
  });

  it('require a model with a URL, and a URL with a model, naming the variables', () => {
    expect(() => load({ GURU_LLM_URL: 'https://api.openai.com/v1' })).toThrow(
      /llmModel \(GURU_LLM_MODEL\): required when GURU_LLM_URL is set: the chat model to use there/,
    );
    expect(() => load({ GURU_LLM_MODEL: 'llama3.2' })).toThrow(/llmUrl \(GURU_LLM_URL\): required when GURU_LLM_MODEL is set/);
  });

  it('refuse a URL that is not http(s) and a blank model, without repeating the key', () => {
    for (const env of [
      { GURU_LLM_URL: 'localhost:11434/v1', GURU_LLM_MODEL: 'llama3.2', GURU_LLM_API_KEY: 'sk-llm-secret' },
      { GURU_LLM_URL: 'ftp://models.example/v1', GURU_LLM_MODEL: 'llama3.2', GURU_LLM_API_KEY: 'sk-llm-secret' },
    ]) {
      const error = (() => {
        try {
          load(env);
        } catch (failure) {
          return failure as Error;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect(error?.message).toMatch(/llmUrl \(GURU_LLM_URL\): must be an http:\/\/ or https:\/\/ API root/);
      expect(error?.message).not.toContain('sk-llm-secret');
    }
    expect(() => load({ GURU_LLM_URL: 'http://localhost:11434/v1', GURU_LLM_MODEL: '   ' })).toThrow(/llmModel \(GURU_LLM_MODEL\)/);
  });
});

describe('YouTube Data API settings', () => {
  it('default to Google’s API and no key', () => {
    const config = load({});
    expect(config.youtubeApiUrl).toBe(DEFAULT_YOUTUBE_API_URL);
    expect(DEFAULT_YOUTUBE_API_URL).toBe('https://www.googleapis.com/youtube/v3');
    expect(config.youtubeApiKey).toBeUndefined();
  });

  it('read the key and the API URL from the environment, without a trailing slash', () => {
    const config = load({ GURU_YOUTUBE_API_KEY: ' AIza-env-key ', GURU_YOUTUBE_API_URL: 'http://127.0.0.1:9100/youtube/v3/' });
    expect(config).toMatchObject({ youtubeApiKey: 'AIza-env-key', youtubeApiUrl: 'http://127.0.0.1:9100/youtube/v3' });
  });

  it('take them from the config file, the environment winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-config-youtube-'));
    try {
      const file = join(dir, 'settings.json');
      writeFileSync(file, JSON.stringify({ youtubeApiKey: 'AIza-file-key', youtubeApiUrl: 'https://proxy.example/youtube/v3' }));
      expect(loadConfig({ env: { GURU_DATA_DIR: dir }, configFile: file })).toMatchObject({
        youtubeApiKey: 'AIza-file-key',
        youtubeApiUrl: 'https://proxy.example/youtube/v3',
      });
      expect(loadConfig({ env: { GURU_DATA_DIR: dir, GURU_YOUTUBE_API_KEY: 'AIza-env-key' }, configFile: file }).youtubeApiKey).toBe('AIza-env-key');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuse a blank key and a URL that is not http(s), naming the variables and never repeating the key', () => {
    expect(() => load({ GURU_YOUTUBE_API_KEY: '   ' })).toThrow(/youtubeApiKey \(GURU_YOUTUBE_API_KEY\): must not be blank/);
    try {
      load({ GURU_YOUTUBE_API_KEY: 'AIza-secret-key', GURU_YOUTUBE_API_URL: 'googleapis.com/youtube/v3' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/youtubeApiUrl \(GURU_YOUTUBE_API_URL\): must be an http:\/\/ or https:\/\/ URL of the YouTube Data API v3/);
      expect((error as Error).message).not.toContain('AIza-secret-key');
    }
  });
});

describe('public URL', () => {
  it('is unset by default and read from GURU_PUBLIC_URL (or a flag) without a trailing slash', () => {
    expect(load({}).publicUrl).toBeUndefined();
    expect(load({ GURU_PUBLIC_URL: 'https://guru.example.com/base/' }).publicUrl).toBe('https://guru.example.com/base');
    expect(load({ GURU_PUBLIC_URL: 'https://a.example' }, { publicUrl: 'https://b.example' }).publicUrl).toBe('https://b.example');
  });

  it('refuses a URL that is not http(s), naming the variable', () => {
    expect(() => load({ GURU_PUBLIC_URL: 'guru.example.com' })).toThrow(/publicUrl \(GURU_PUBLIC_URL\): must be an http:\/\/ or https:\/\/ URL/);
  });
});

describe('extraction threads', () => {
  it('leave the count to the engine unless GURU_EXTRACTION_THREADS sets it', () => {
    expect(load({}).extractionThreads).toBeUndefined();
    expect(load({ GURU_EXTRACTION_THREADS: '3' }).extractionThreads).toBe(3);
  });

  it('refuse a count that is not a whole number of at least one', () => {
    expect(() => load({ GURU_EXTRACTION_THREADS: '0' })).toThrow(/extractionThreads \(GURU_EXTRACTION_THREADS\)/);
    expect(() => load({ GURU_EXTRACTION_THREADS: 'many' })).toThrow(/GURU_EXTRACTION_THREADS/);
  });
});

describe('speech streams', () => {
  it('leave the caps to the engine unless GURU_SPEECH_STREAMS_PER_KEY and GURU_SPEECH_STREAMS set them', () => {
    expect(load({}).speechStreamsPerKey).toBeUndefined();
    expect(load({}).speechStreams).toBeUndefined();
    const set = load({ GURU_SPEECH_STREAMS_PER_KEY: '1', GURU_SPEECH_STREAMS: '8' });
    expect([set.speechStreamsPerKey, set.speechStreams]).toEqual([1, 8]);
  });

  it('refuse a cap that is not a whole number of at least one, naming the variable', () => {
    expect(() => load({ GURU_SPEECH_STREAMS_PER_KEY: '0' })).toThrow(/speechStreamsPerKey \(GURU_SPEECH_STREAMS_PER_KEY\)/);
    expect(() => load({ GURU_SPEECH_STREAMS: '2.5' })).toThrow(/speechStreams \(GURU_SPEECH_STREAMS\)/);
  });
});

describe('attachment ceiling and body budget', () => {
  it('reads the ceiling as KIND=COUNTxBYTES per kind, and a budget in MiB (160 by default)', () => {
    expect(load({}).attachmentCeiling).toBeUndefined();
    expect(load({}).bodyBudgetMb).toBe(160);
    expect(load({ GURU_ATTACHMENT_CEILING: 'images=10x5000000, pdf_files=3x20000000', GURU_BODY_BUDGET_MB: '100' })).toMatchObject({
      attachmentCeiling: { images: { count: 10, max_bytes: 5_000_000 }, pdf_files: { count: 3, max_bytes: 20_000_000 } },
      bodyBudgetMb: 100,
    });
  });

  it('refuses a ceiling it cannot read or past the schema, naming the variable', () => {
    expect(() => load({ GURU_ATTACHMENT_CEILING: 'videos=1x10' })).toThrow(/attachmentCeiling \(GURU_ATTACHMENT_CEILING\): takes KIND=COUNTxBYTES/);
    expect(() => load({ GURU_ATTACHMENT_CEILING: 'images=21x10' })).toThrow(/images=21x10: at most 20 files of 1 to 50000000 bytes/);
    expect(() => load({ GURU_ATTACHMENT_CEILING: 'images=5x60000000' })).toThrow(/GURU_ATTACHMENT_CEILING/);
    expect(() => load({ GURU_BODY_BUDGET_MB: '0' })).toThrow(/bodyBudgetMb \(GURU_BODY_BUDGET_MB\)/);
  });
});

describe('the Redis URL', () => {
  it('takes redis:// and rediss:// from the environment, or a flag over it', () => {
    expect(load({}).redisUrl).toBeUndefined();
    expect(load({ GURU_REDIS_URL: 'redis://127.0.0.1:6379/0' }).redisUrl).toBe('redis://127.0.0.1:6379/0');
    expect(load({ GURU_REDIS_URL: 'redis://a.example:6379' }, { redisUrl: 'rediss://:pw@b.example:6380/1' }).redisUrl).toBe('rediss://:pw@b.example:6380/1');
  });

  it('refuses another scheme without repeating the URL and its password', () => {
    for (const url of ['http://:hunter2@127.0.0.1:6379', 'postgresql://u:hunter2@127.0.0.1/db', 'hunter2']) {
      let error: Error | undefined;
      try {
        load({ GURU_REDIS_URL: url });
      } catch (caught) {
        error = caught as Error;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect(error?.message).toMatch(/redisUrl \(GURU_REDIS_URL\): must be a redis:\/\/ or rediss:\/\/ URL/);
      expect(error?.message).not.toContain('hunter2');
    }
  });
});

describe('the database URL', () => {
  it('takes postgres:// and postgresql:// from the environment, or a flag over it', () => {
    expect(load({}).databaseUrl).toBeUndefined();
    expect(load({ GURU_DATABASE_URL: 'postgresql://guru:pw@127.0.0.1:5432/guru' }).databaseUrl).toBe('postgresql://guru:pw@127.0.0.1:5432/guru');
    expect(load({ GURU_DATABASE_URL: 'postgresql://a.example/guru' }, { databaseUrl: 'postgres://u:pw@b.example:5433/other' }).databaseUrl).toBe(
      'postgres://u:pw@b.example:5433/other',
    );
  });

  it('refuses another scheme without repeating the URL and its password', () => {
    for (const url of ['mysql://u:hunter2@127.0.0.1/db', 'redis://:hunter2@127.0.0.1:6379', 'http://u:hunter2@127.0.0.1:5432/db', 'hunter2']) {
      let error: Error | undefined;
      try {
        load({ GURU_DATABASE_URL: url });
      } catch (caught) {
        error = caught as Error;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect(error?.message).toMatch(/databaseUrl \(GURU_DATABASE_URL\): must be a postgres:\/\/ or postgresql:\/\/ URL/);
      expect(error?.message).not.toContain('hunter2');
    }
  });

  it('is named by where it came from: the flag, the environment variable or the config file', () => {
    expect(() => load({}, { databaseUrl: 'mysql://db:3306/guru' })).toThrow(/databaseUrl \(--database-url\): must be a postgres:\/\//);
    const dir = mkdtempSync(join(tmpdir(), 'guru-config-database-'));
    try {
      const file = join(dir, 'guru.json');
      writeFileSync(file, JSON.stringify({ databaseUrl: 'sqlite:///guru.db' }));
      expect(() => loadConfig({ env: { GURU_DATA_DIR: dir }, configFile: file })).toThrow(`databaseUrl (GURU_DATABASE_URL, in ${file}): must be a postgres://`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an invalid setting', () => {
  it('is named by where its value came from: the flag, the environment variable or the config file', () => {
    expect(() => load({}, { tools: 'bogus' })).toThrow(/tools \(--tools\): unknown tool group "bogus"/);
    expect(() => load({ GURU_TOOLS: 'bogus' })).toThrow(/tools \(GURU_TOOLS\): unknown tool group "bogus"/);
    expect(() => load({ GURU_RATE_LIMIT_PER_MINUTE: '1' }, { redisUrl: 'http://cache:6379' })).toThrow(/redisUrl \(--redis-url\)/);
    const dir = mkdtempSync(join(tmpdir(), 'guru-config-origin-'));
    try {
      const file = join(dir, 'guru.json');
      writeFileSync(file, JSON.stringify({ tools: 'bogus' }));
      expect(() => loadConfig({ env: { GURU_DATA_DIR: dir }, configFile: file })).toThrow(`tools (GURU_TOOLS, in ${file}): unknown tool group "bogus"`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
