/**
 * A small page that holds the markup extraction meets, extracted once when an extraction worker
 * starts. V8 optimizes a function for what it has seen it do: the tokenizer's states, the writer's
 * elements and escapes that the first pages of a site happen not to hold were left out of that
 * code, and each first meeting with one later threw the code away and compiled it again (parse,
 * escapeMarkdown, children…: 45 compiles of a worker's 205 over the PostgreSQL manual were
 * such repeats). Seen here first, they are compiled in at once. The page's content is marked, so
 * Readability does not read it: that would cost tens of milliseconds in each worker, and the code
 * after it is the same.
 */
import { extractHtml, type ExtractedHtml } from './html.js';

/** Every kind of token, element and escape, in a container (#docContent) with chrome around it. */
const PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Warm-up</title><meta property="og:title" content="Warm &amp; up">
<link rel="stylesheet" href="style.css"><base href="http://127.0.0.1/docs/"><style>p { color: red; }</style>
<script>var a = 1 < 2 && "</p>";</script></head>
<body><div class="navheader" role="navigation"><a href="/">Home</a></div><div id="cookie-banner">Cookies</div>
<div id="docContent"><div class="sect1" id="s1">
<h1 class="title">The &lt;sample&gt; page &#8212; &#x2014; &amp; more<a class="headerlink" href="#s1" title="Permalink to this heading">¶</a></h1>
<!-- a comment -->
<p>Text with <em>emphasis</em>, <strong>strong</strong>, <i>i</i>, <b>b</b>, <code class="literal">code_with_underscores</code>,
<a href="other.html#part" title="A title">a link</a>, <a href="javascript:void(0)">a script</a>, <a name="anchor"></a>
<span class="x">a span</span>, <del>del</del>, <s>s</s>, *stars*, [brackets], back\\slash, \`ticks\`, non&nbsp;breaking,
a&#x2003;wide space, café “quoted” — dashed.<br>After a line break.</p>
<p>- a dash</p><p>+ a plus</p><p># a hash</p><p>12. a number</p><p>~~~ tildes</p><p>&gt; a quote</p><p>= equals</p>
<p> <code>leading</code> and trailing <em>space </em>words, a<strong> leading</strong> one, <em>“quoted”</em> and <a href='a.html?x=1&amp;y=2' title=a&amp;b>entities</a></p>
<pre class="programlisting">SELECT 1;
  indented &lt;b&gt;</pre>
<pre><code class="language-python">print("hi")
</code></pre>
<div class="highlight-python3 notranslate"><div class="highlight"><pre><span></span>x = 1</pre></div></div>
<div class="highlight-source-js"><pre>let y = 2;</pre></div>
<blockquote><p>Quoted</p><p>twice</p></blockquote>
<ul><li>one</li><li><p>two</p><ul><li>nested</li></ul></li><li><input type="checkbox" checked> done</li><li><input type="checkbox"> to do</li></ul>
<ol start="3"><li>three</li><li>four</li></ol>
<dl><dt>term</dt><dd>definition</dd></dl>
<table class="table" summary="s"><caption>Caption</caption><colgroup><col><col><col></colgroup>
<thead><tr><th align="left">A</th><th style="text-align: right">B</th><th align="center">C</th></tr></thead>
<tbody><tr><td>1</td><td colspan="2">2 | a pipe</td></tr><tr><td>x</td><td><code>y</code></td><td></td></tr></tbody>
<tfoot><tr><td>f</td><td>g</td><td>h</td></tr></tfoot></table>
<table><tr><td>no</td><td>headings</td></tr></table>
<table><tr><th>h</th><th>k</th></tr><tr><td>1</td><td><ul><li>listed</li></ul><p>and said</p></td></tr></table>
<table><tr><td>alone in its table</td></tr></table>
<img src="image.png" alt="an image" title="its title"><hr>
<h2>Two</h2><h3>Three</h3><h4>Four</h4><h5>Five</h5><h6>Six</h6>
<textarea>t</textarea><svg><path d="M0 0"/></svg><![CDATA[ data ]]><?pi data?>
<p class='single' data-x=unquoted>Words of a paragraph long enough to count as content, with commas, and a period.
Another sentence follows it here; it goes on about nothing in particular, at some length.</p>
</div></div>
<aside>aside</aside><div hidden>hidden</div><footer>foot</footer></body></html>`;

/** Extracts the page; what it gives is returned for the tests to look at. */
export function warmUp(): ExtractedHtml {
  return extractHtml(PAGE, 'http://127.0.0.1/docs/warm-up.html');
}
