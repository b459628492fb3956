//go:build browser

// The browser test needs Debian's chromium, which Go cannot provide: it runs
// with -tags browser (.ci/run installs chromium and turns the tag on).

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserSearchesAndPaginates drives the HTML search page in headless
// Chromium: type a query, submit, see results, follow the next page.
func TestBrowserSearchesAndPaginates(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("Debian's chromium is required (.ci/run installs it): ", err)
	}
	d := startDemo(t)
	// A query with more than one page of results: the crawl is still
	// filling the index, so ask until one has (bounded by the deadline).
	var query string
	deadline := time.Now().Add(2 * time.Minute)
	for query == "" && time.Now().Before(deadline) {
		for _, q := range d.queries {
			if d.search(t, q).Total > 10 {
				query = q
				break
			}
		}
		if query == "" {
			<-time.After(time.Second)
		}
	}
	if query == "" {
		t.Fatal("no sample query reached more than one page of results in 2 minutes")
	}

	ctx := newBrowser(t, chromium)
	err = chromedp.Do(ctx,
		chromedp.Navigate(d.base+"/"),
		chromedp.WaitVisible(`input[name=q]`),
		chromedp.SendKeys(`input[name=q]`, query),
		chromedp.Submit(`input[name=q]`),
		chromedp.WaitVisible(`#results`),
	)
	if err != nil {
		t.Fatalf("browser: search: %v", err)
	}
	text := func(sel string) string { return browserText(t, ctx, sel) }
	count := func() int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#results li').length`))
		if err != nil {
			t.Fatalf("browser: count results: %v", err)
		}
		return n
	}
	stats, results1, firstPage := text(`#stats`), count(), text(`#results li:first-child a.title`)
	if err := chromedp.Do(ctx, chromedp.Click(`a[rel=next]`), chromedp.WaitVisible(`span[aria-current=page]`)); err != nil {
		t.Fatalf("browser: next page: %v", err)
	}
	current, results2, secondPage := text(`span[aria-current=page]`), count(), text(`#results li:first-child a.title`)
	if !strings.Contains(stats, "results in") || results1 != 10 {
		t.Fatalf("first page: stats %q, %d results, want 10", stats, results1)
	}
	if current != "2" || results2 == 0 || secondPage == firstPage {
		t.Fatalf("after Next: page %q with %d results, first title %q (first page's %q)", current, results2, secondPage, firstPage)
	}
}

// newBrowser starts headless Chromium for one test, bounded to 90 s.
func newBrowser(t *testing.T, chromium string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// browserText is the text of the first element sel finds.
func browserText(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("browser: text of %s: %v", sel, err)
	}
	return v
}

// startServe runs `deltaq serve` on an empty data directory with a watch
// key for ada, checking watched pages every 200 ms, and returns its base
// URL and the key.
func startServe(t *testing.T) (base, key string) {
	t.Helper()
	data := t.TempDir()
	// Watches as frequent as 1s: serve checks a page no sooner than its
	// interval, and the tests wait for a check after a change.
	out, _, err := run(t, "watch", "key", "ada", "--min-every", "1s", "--data", data)
	if err != nil {
		t.Fatalf("watch key: %v", err)
	}
	key = strings.TrimSpace(out)
	cmd := exec.Command(binary, "serve", "--data", data, "--listen", "127.0.0.1:0", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "DELTAQ_CRAWLER_ALLOW_PRIVATE=true", "DELTAQ_WATCH_TICK=200ms")
	cmd.Stderr = os.Stderr
	return startServeProc(t, cmd).base, key
}

// signIn enters the key in the watch pages' key form.
func signIn(t *testing.T, ctx context.Context, base, key string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/watches"),
		chromedp.WaitVisible(`#key-form input[name=key]`),
		chromedp.SendKeys(`#key-form input[name=key]`, key),
		chromedp.Submit(`#key-form`),
		chromedp.WaitVisible(`#user`),
	)
	if err != nil {
		t.Fatalf("browser: sign in: %v", err)
	}
}

// TestBrowserWatchesAPageAndShowsItsDiff drives the watch pages in
// headless Chromium against a running `deltaq serve`: enter the key, add
// a watch through the form, change the page on loopback, see the change in
// the history once the check loop has found it, open its side-by-side and
// changes-only views, and remove the watch.
func TestBrowserWatchesAPageAndShowsItsDiff(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("Debian's chromium is required (.ci/run installs it): ", err)
	}
	page, setPage := changingPage(t, `<html><body><h1>Fees</h1><p>The filing fee is 40 dollars, due by March 3.</p></body></html>`)
	base, key := startServe(t)
	ctx := newBrowser(t, chromium)
	signIn(t, ctx, base, key)

	err = chromedp.Do(ctx,
		chromedp.WaitVisible(`#no-watches`),
		chromedp.SendKeys(`#url`, page),
		chromedp.SetValue(`#type`, "words"),
		chromedp.SetValue(`#every`, "2s"),
		chromedp.SetValue(`#notify`, "feed"),
		chromedp.Submit(`#add-watch`),
		chromedp.WaitVisible(`#no-history`),
	)
	if err != nil {
		t.Fatalf("browser: add a watch: %v", err)
	}
	text := func(sel string) string { return browserText(t, ctx, sel) }
	if u := text(`#watch-url`); u != page {
		t.Fatalf("the watch page shows %q, want %q", u, page)
	}
	watchPage, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}

	setPage(`<html><body><h1>Fees</h1><p>The filing fee is 55 dollars, due by April 10.</p></body></html>`)
	// The serve loop checks the page again once its 2s have passed;
	// reload until the history shows the change (bounded by the browser's
	// deadline).
	for {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#history a.side').length`))
		if err != nil {
			t.Fatalf("browser: waiting for the change: %v", err)
		}
		if n > 0 {
			break
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(watchPage), chromedp.WaitVisible(`#record`)); err != nil {
			t.Fatalf("browser: reload the watch page: %v", err)
		}
	}
	if rec := text(`#record`); !strings.Contains(rec, "1 changes, 1 notifications") {
		t.Errorf("record after the change: %q", rec)
	}

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#history a.side`)), chromedp.WaitVisible(chromedp.CSS(`table.side-by-side`))); err != nil {
		t.Fatalf("browser: side-by-side view: %v", err)
	}
	js := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("browser: %s: %v", expr, err)
		}
		return v
	}
	before := js(`document.querySelector('table.side-by-side tr:nth-child(2) td:first-child').textContent`)
	after := js(`document.querySelector('table.side-by-side tr:nth-child(2) td:last-child').textContent`)
	if !strings.Contains(before, "40") || strings.Contains(before, "55") || !strings.Contains(after, "55") || strings.Contains(after, "40") {
		t.Errorf("side by side: before %q, after %q; want 40 only before and 55 only after", before, after)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`#to-changes`), chromedp.WaitVisible(chromedp.CSS(`div.changes-only`))); err != nil {
		t.Fatalf("browser: changes-only view: %v", err)
	}
	changes := js(`document.querySelector('div.changes-only').textContent`)
	if !strings.Contains(changes, "march") || !strings.Contains(changes, "april") || strings.Contains(changes, "fees") {
		t.Errorf("changes only: %q; want march and april, without the unchanged heading", changes)
	}

	if err := chromedp.Do(ctx, chromedp.Click(`#back`), chromedp.WaitVisible(`#remove`), chromedp.Click(`#remove`), chromedp.WaitVisible(`#no-watches`)); err != nil {
		t.Fatalf("browser: remove the watch: %v", err)
	}
}

// TestBrowserAddsAndRemovesSearchAlerts drives the search-alert page: a
// query that does not parse is refused with the reason, a good one is
// listed, and removing it empties the list.
func TestBrowserAddsAndRemovesSearchAlerts(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("Debian's chromium is required (.ci/run installs it): ", err)
	}
	base, key := startServe(t)
	ctx := newBrowser(t, chromium)
	signIn(t, ctx, base, key)
	err = chromedp.Do(ctx,
		chromedp.Click(`#nav-alerts`),
		chromedp.WaitVisible(`#no-alerts`),
		chromedp.SendKeys(`#query`, `"plain language`),
		chromedp.Submit(`#add-alert`),
		chromedp.WaitVisible(`#error`),
	)
	if err != nil {
		t.Fatalf("browser: add a bad alert: %v", err)
	}
	text := func(sel string) string { return browserText(t, ctx, sel) }
	if e := text(`#error`); !strings.HasPrefix(e, `query = "plain language: `) || !strings.Contains(e, "quote") {
		t.Errorf("unclosed quote: error %q, want one naming the query and the quote", e)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(`#query`, `"plain language" site:digital.gov`),
		chromedp.Submit(`#add-alert`),
		chromedp.WaitVisible(`#alerts`),
	)
	if err != nil {
		t.Fatalf("browser: add an alert: %v", err)
	}
	if q := text(`#alerts td.query`); q != `"plain language" site:digital.gov` {
		t.Errorf("listed query %q", q)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#alerts button.remove`)), chromedp.WaitVisible(`#no-alerts`)); err != nil {
		t.Fatalf("browser: remove the alert: %v", err)
	}
}
