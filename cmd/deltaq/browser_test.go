//go:build browser

// The browser test needs Debian's chromium, which Go cannot provide: it runs
// with -tags browser (.ci/run installs chromium and turns the tag on).

package main

import (
	"context"
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

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

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
	text := func(sel string) string {
		v, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("browser: text of %s: %v", sel, err)
		}
		return v
	}
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
