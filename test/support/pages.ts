/**
 * Web pages shaped like real ones, for extraction and ingestion tests: site chrome (navigation,
 * sidebar, header, footer, cookie banner) around content with code blocks, a table and lists.
 */

/** A documentation page whose content sits in <main>. Every piece of chrome holds the word CHROME. */
export const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Connection pooling | Acme Docs</title>
  <meta property="og:title" content="Connection pooling">
  <link rel="stylesheet" href="/site.css">
  <script>window.analytics = "CHROME script";</script>
  <style>.CHROME { color: red }</style>
</head>
<body>
  <a class="skip-link" href="#content">Skip to content CHROME</a>
  <div id="cookie-banner" class="cookie-consent">We use cookies CHROME. <button>Accept CHROME</button></div>
  <header class="site-header">
    <a href="/">Acme CHROME home</a>
    <nav aria-label="Main"><ul><li><a href="/docs">Docs CHROME</a></li><li><a href="/blog">Blog CHROME</a></li></ul></nav>
  </header>
  <div class="layout">
    <aside class="sidebar"><ul><li><a href="/docs/install">Install CHROME</a></li><li><a href="/docs/pooling">Pooling CHROME</a></li></ul></aside>
    <main id="content">
      <div class="breadcrumbs"><a href="/docs">Docs CHROME</a> › Pooling</div>
      <article>
        <h1>Connection pooling</h1>
        <p>A <strong>pool</strong> keeps connections open so that each request does not pay for a new one.
           See <a href="../guides/tuning.html#pool">the tuning guide</a> and <a href="javascript:void(0)">this script link</a>.</p>
        <h2>Configuring the pool</h2>
        <p>Create the pool once, when the application starts:</p>
        <pre><code class="language-typescript">const pool = new Pool({ max: 10 });
const client = await pool.connect();</code></pre>
        <div class="highlight"><pre class="language-python"><span class="k">import</span> <span class="n">acme</span>
<span class="n">pool</span> <span class="o">=</span> <span class="n">acme</span><span class="o">.</span><span class="n">Pool</span><span class="p">(</span><span class="n">max</span><span class="o">=</span><span class="mi">10</span><span class="p">)</span></pre></div>
        <h2>Settings</h2>
        <table>
          <thead><tr><th>Setting</th><th>Default</th><th>Meaning</th></tr></thead>
          <tbody>
            <tr><td><code>max</code></td><td>10</td><td>Most connections at once</td></tr>
            <tr><td><code>idleTimeout</code></td><td>30 s</td><td>How long an idle connection stays open</td></tr>
          </tbody>
        </table>
        <h2>When to use it</h2>
        <ul>
          <li>Web servers
            <ul>
              <li>with many short requests</li>
              <li>behind a load balancer
                <ol><li>one pool per process</li><li>sized to the database's limit</li></ol>
              </li>
            </ul>
          </li>
          <li>Batch jobs that run queries in parallel</li>
        </ul>
        <p>Synopsis of the command:</p>
        <pre class="synopsis">
acme pool <em class="replaceable"><code>name</code></em> [ --max <em class="replaceable"><code>count</code></em> ]</pre>
      </article>
    </main>
  </div>
  <footer class="site-footer"><p>© 2026 Acme CHROME</p><nav><a href="/privacy">Privacy CHROME</a></nav></footer>
  <div role="dialog" aria-modal="true" class="newsletter">Subscribe CHROME</div>
</body>
</html>`;

/**
 * A blog post without <main> or <article>: the content is only found by Readability, among
 * navigation and a sidebar of links.
 */
export const BLOG_PAGE = `<!DOCTYPE html>
<html>
<head><title>Why we moved to SQLite - The Acme Blog</title></head>
<body>
  <div id="top-nav" class="navbar"><a href="/">Home CHROME</a> <a href="/about">About CHROME</a> <a href="/archive">Archive CHROME</a></div>
  <div id="wrapper">
    <div id="sidebar-left" class="widget-area">
      <h3>Recent posts CHROME</h3>
      <ul><li><a href="/p/1">Post one CHROME</a></li><li><a href="/p/2">Post two CHROME</a></li><li><a href="/p/3">Post three CHROME</a></li></ul>
    </div>
    <div class="post-body entry-content">
      <h2>Why we moved to SQLite</h2>
      <p>For years our service ran on a dedicated database server. Every deployment needed the server, its backups, its upgrades and a network path to it, and most of our customers ran a single instance anyway. We measured what the application actually needed and found that one file on a local disk would do.</p>
      <p>SQLite in write-ahead-log mode lets readers continue while a writer commits. With a busy timeout, several processes can share one database file safely. Our largest customer stores about four million rows and searches them with the full-text index in a few milliseconds.</p>
      <p>Backups became a copy of one file made with the online backup interface, and restoring one became a copy back. Upgrades are migrations numbered in the application itself, applied when it starts, inside one transaction.</p>
      <p>There are limits. Only one writer commits at a time, so write-heavy workloads with many concurrent writers are a poor fit. For us, writes come in bursts from one ingestion queue, which suits it well.</p>
    </div>
  </div>
  <div class="copyright">Copyright CHROME</div>
</body>
</html>`;
