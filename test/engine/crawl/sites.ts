/**
 * Websites for crawler tests, served by the loopback test server: HTML pages made of links, pages
 * that never answer (to hold a crawl mid-way), and a meter of requests under way at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { CrawlService, type CrawlServiceOptions } from '../../../src/engine/crawl/crawler.js';
import { openDatabase, type Db } from '../../../src/engine/store/database.js';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';
import { silentLogger } from '../../../src/log.js';
import { HttpFetcher } from '../../../src/net/http-fetcher.js';
import { respond, type Route } from '../../support/loopback-server.js';

/** An HTML page whose body is one link per entry of `links`, written as given. */
export function page(title: string, links: readonly string[] = [], extra = ''): string {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('\n');
  return `<!DOCTYPE html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1><ul>\n${anchors}\n</ul>${extra}</body></html>`;
}

/** Routes serving an HTML page per path, linking to the paths listed for it. */
export function pages(site: Readonly<Record<string, readonly string[]>>): Record<string, Route> {
  return Object.fromEntries(Object.entries(site).map(([path, links]) => [path, respond(page(path, links))]));
}

/** Responses held open until released (or until the server closes), to keep requests under way. */
export class Hanging {
  readonly held: ServerResponse[] = [];
  /** Requests whose connection the client closed before an answer. */
  aborted = 0;

  route(): Route {
    return (_request, response) => {
      this.held.push(response);
      response.on('close', () => {
        if (!response.writableFinished) this.aborted += 1;
      });
    };
  }
}

/** Counts requests under way at once, and when each arrived (ms, performance.now()). */
export class Meter {
  current = 0;
  highest = 0;
  readonly arrivals: number[] = [];

  wrap(route: Route): Route {
    return (request, response) => {
      this.arrivals.push(performance.now());
      this.current += 1;
      this.highest = Math.max(this.highest, this.current);
      response.on('close', () => {
        this.current -= 1;
      });
      return route(request, response);
    };
  }
}

export interface Harness {
  readonly db: Db;
  /** The store port over `db`, shared by the services (as the engine shares one). */
  readonly sql: SqliteSql;
  readonly dir: string;
  readonly guruId: number;
  readonly otherGuruId: number;
  readonly fetcher: HttpFetcher;
  /** A crawl service on this database; closed by close(). */
  service(options?: CrawlServiceOptions): CrawlService;
  close(): Promise<void>;
}

/** A database in a temporary directory with the gurus `docs` and `other`, and a fetcher allowed onto loopback. */
export function openHarness(): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'guru-crawl-'));
  const db = openDatabase(dir);
  const now = new Date().toISOString();
  const addGuru = (slug: string, name: string) =>
    db.prepare<[string, string, string], { id: number }>('INSERT INTO gurus (slug, name, date_created) VALUES (?, ?, ?) RETURNING id').get(slug, name, now)!.id;
  const guruId = addGuru('docs', 'Docs');
  const otherGuruId = addGuru('other', 'Other');
  const sql = new SqliteSql(db);
  const fetcher = new HttpFetcher({ allowPrivateNetwork: true });
  const services: CrawlService[] = [];
  return {
    db,
    sql,
    dir,
    guruId,
    otherGuruId,
    fetcher,
    service(options) {
      const service = new CrawlService(sql, () => Promise.resolve(fetcher), silentLogger, options);
      services.push(service);
      return service;
    },
    async close() {
      for (const service of services) await service.close();
      await fetcher.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
