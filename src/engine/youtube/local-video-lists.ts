/**
 * The video URLs of a YouTube channel or playlist, for adding as sources.
 * Not tied to a guru; the importer loads on first use.
 */
import type { VideoLists } from '../../core/assistant.js';
import { ImportUrlRequest, type ChannelImport, type PlaylistImport } from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import type { HttpFetcher } from '../../net/http-fetcher.js';
import type { EngineContext } from '../context.js';
import type { VideoListImporter } from './video-lists.js';

export class LocalVideoLists implements VideoLists {
  readonly #settings: EngineContext['settings']['youtubeApi'];
  readonly #http: () => Promise<HttpFetcher>;
  #importer: Promise<VideoListImporter> | undefined;

  constructor(context: EngineContext, http: () => Promise<HttpFetcher>) {
    this.#settings = context.settings.youtubeApi;
    this.#http = http;
  }

  async importChannel(input: ImportUrlRequest): Promise<ChannelImport> {
    const request = parseRequest(ImportUrlRequest, input, 'import_channel');
    return (await this.#videoListImporter()).importChannel(request.url);
  }

  async importPlaylist(input: ImportUrlRequest): Promise<PlaylistImport> {
    const request = parseRequest(ImportUrlRequest, input, 'import_playlist');
    return (await this.#videoListImporter()).importPlaylist(request.url);
  }

  #videoListImporter(): Promise<VideoListImporter> {
    this.#importer ??= Promise.all([import('./video-lists.js'), this.#http()]).then(
      ([{ VideoListImporter }, http]) =>
        new VideoListImporter(http, {
          apiKey: this.#settings?.apiKey,
          ...(this.#settings?.baseUrl === undefined ? {} : { baseUrl: this.#settings.baseUrl }),
        }),
    );
    return this.#importer;
  }
}
