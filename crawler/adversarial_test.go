package crawler_test

import (
	"context"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/eval/synthweb"
	"github.com/deltaq/deltaq/repo"
)

func synthConfig() synthweb.Config {
	return synthweb.Config{Seed: 7, Sites: 1, PagesPerSite: 10, Sections: 2, PageSize: 20, FeedSize: 20, TimeScale: 1,
		FastChangeInterval: 3 * time.Minute, SlowChangeInterval: 6 * time.Hour, ChangeRateShape: 1,
		MajorChangeFraction: 0.3, NewArticleInterval: 90 * time.Second, ChainFraction: 0.2,
		DeleteFraction: 0.1, MeanLifetime: 2 * time.Hour}
}

// TestAdversarialWebNeitherHangsNorGrows crawls every trap of the synthetic
// adversarial web (redirect loops, infinite calendars, slow drips, huge
// bodies, a gzip bomb, malformed HTML, wrong charsets, 429/503, a huge and
// a failing robots.txt) and checks the crawl ends with bounded counts and
// sizes. The test's own deadline is the hang check; nothing asserts speed.
func TestAdversarialWebNeitherHangsNorGrows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { adversarialCrawl(t) })
}

func adversarialCrawl(t *testing.T) {
	sc := synthConfig()
	sc.Adversarial = true
	web, err := synthweb.New(synthweb.Options{Config: sc})
	if err != nil {
		t.Fatal(err)
	}
	net := serveMem(t, web)
	hosts := []string{"trap.synth.test", "trap-robots-huge.synth.test", "trap-robots-error.synth.test"}

	cfg := defaults(t)
	unpolite(cfg, 4, hosts...)
	cfg.Crawler.Politeness.Global = 8
	cfg.Crawler.Politeness.BackoffInitial = 200 * time.Millisecond
	cfg.Crawler.Politeness.BackoffMax = time.Second
	cfg.Crawler.Timeouts.Request = 2 * time.Second
	cfg.Crawler.Timeouts.ResponseHeader = 2 * time.Second
	cfg.Crawler.Limits.MaxBodyBytes = 1 << 20
	cfg.Crawler.Limits.MaxPagesPerHost = 300
	cfg.Crawler.Limits.MaxDepth = 10
	cfg.Crawler.Limits.MaxRetries = 1
	cfg.Crawler.Extract.MaxLinks = 1000

	baseGoroutines := runtime.NumGoroutine()
	e := newEnvWith(t, cfg, t.TempDir(), crawler.Options{Dial: net.Dial})
	var seeds []string
	for _, h := range hosts {
		seeds = append(seeds, "http://"+h+"/")
	}
	sum := e.crawl(t, seeds...)
	t.Logf("adversarial crawl: %s", sum)

	ctx := context.Background()
	for _, h := range hosts {
		n := 0
		for p, err := range e.db.HostPages(ctx, h) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			vs, err := e.db.Versions(ctx, p.URL, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				if len(v.Body) > cfg.Crawler.Limits.MaxBodyBytes {
					t.Errorf("%s: stored a %d-byte body over the %d limit", p.URL, len(v.Body), cfg.Crawler.Limits.MaxBodyBytes)
				}
			}
			if h == "trap-robots-error.synth.test" && p.Fetches > 0 {
				t.Errorf("%s fetched although its robots.txt answers 500", p.URL)
			}
		}
		if n > cfg.Crawler.Limits.MaxPagesPerHost {
			t.Errorf("%s: %d pages recorded, over the %d per-host limit", h, n, cfg.Crawler.Limits.MaxPagesPerHost)
		}
	}
	if n := web.DisallowedFetches(); n != 0 {
		t.Errorf("%d requests to robots-disallowed or robots-failing paths", n)
	}
	for _, c := range []struct {
		url  string
		want repo.Outcome
	}{
		{"http://trap.synth.test/huge", repo.OutcomeTooLarge},
		{"http://trap.synth.test/bomb", repo.OutcomeTooLarge},
		{"http://trap.synth.test/drip", repo.OutcomeTimeout},
	} {
		p, err := e.db.Page(c.url)
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if p.LastOutcome != c.want {
			t.Errorf("%s: outcome %s, want %s", c.url, p.LastOutcome, c.want)
		}
	}
	if sum.Fetched() < 50 {
		t.Errorf("only %d fetches: the traps were not explored", sum.Fetched())
	}

	// Memory and goroutines come back down once the crawl is over.
	net.CloseConnections()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 256<<20 {
		t.Errorf("heap holds %d MiB after the crawl", ms.HeapAlloc>>20)
	}
	synctest.Wait() // every goroutine that can end has ended
	if g := runtime.NumGoroutine(); g > baseGoroutines+20 {
		t.Errorf("%d goroutines after the crawl, %d before", g, baseGoroutines)
	}
}

func TestPrivateAddressesAreRefusedUnlessAllowed(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(log.wrap(smallWeb(2, nil, nil)))
	defer srv.Close()
	cfg := defaults(t)
	cfg.Crawler.Sitemaps = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	e.crawl(t, srv.URL+"/")
	if n := len(log.all()); n != 0 {
		t.Fatalf("%d requests reached a loopback server with allow_private off", n)
	}
	p, err := e.db.Page(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	if p.State == repo.StateLive {
		t.Fatalf("loopback page stored: %+v", p)
	}
}

func TestConfigRejectsBadValuesByKey(t *testing.T) {
	cfg := defaults(t).Crawler
	cfg.Extract.MaxLinks = 0
	cfg.Scope = "everywhere"
	err := cfg.Validate()
	for _, want := range []string{"crawler.extract.max_links = 0: must be > 0", `crawler.scope = "everywhere"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to contain %q", err, want)
		}
	}
	if _, err := crawler.New(cfg, nil, crawler.Options{}); err == nil {
		t.Error("New accepted an invalid config")
	}
}
