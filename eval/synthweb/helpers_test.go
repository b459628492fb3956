package synthweb_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/synthweb"
	"github.com/deltaq/deltaq/internal/clock"
)

// start is model time zero in every test.
var start = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// testConfig is a small web whose clock runs at wall speed: minutes-scale
// changes and arrivals, like the demo.
func testConfig() synthweb.Config {
	return synthweb.Config{
		Seed:                42,
		Sites:               3,
		PagesPerSite:        40,
		Sections:            4,
		PageSize:            10,
		FeedSize:            10,
		TimeScale:           1,
		FastChangeInterval:  2 * time.Minute,
		SlowChangeInterval:  2 * time.Hour,
		ChangeRateShape:     1,
		MajorChangeFraction: 0.3,
		NewArticleInterval:  time.Minute,
		ChainFraction:       0.3,
		DeleteFraction:      0.3,
		MeanLifetime:        30 * time.Minute,
		CrawlDelay:          time.Second,
	}
}

// env is a web served on loopback with a client that reaches every
// *.synth.test host through it, and the manual clock the web reads.
type env struct {
	web    *synthweb.Web
	clock  *clock.Manual
	srv    *httptest.Server
	client *http.Client
}

func newEnv(t testing.TB, cfg synthweb.Config) *env {
	t.Helper()
	return newWrappedEnv(t, cfg, func(h http.Handler) http.Handler { return h })
}

// newWrappedEnv serves the web through wrap, so a test can watch requests.
func newWrappedEnv(t testing.TB, cfg synthweb.Config, wrap func(http.Handler) http.Handler) *env {
	t.Helper()
	c := clock.NewManual(start)
	w, err := synthweb.New(synthweb.Options{Config: cfg, Start: start, Now: c.Now})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(wrap(w))
	t.Cleanup(srv.Close)
	tr := &http.Transport{DialContext: synthweb.DialContext(srv.Listener.Addr().String())}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return &env{web: w, clock: c, srv: srv, client: client}
}

type response struct {
	status int
	header http.Header
	body   string
}

// get fetches url at the clock's current time; hdr are extra headers.
func (e *env) get(t testing.TB, url string, hdr ...string) response {
	t.Helper()
	return e.do(t, t.Context(), http.MethodGet, url, hdr...)
}

func (e *env) do(t testing.TB, ctx context.Context, method, url string, hdr ...string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		t.Fatalf("request %s: %v", url, err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

// at sets the clock to start+d.
func (e *env) at(d time.Duration) time.Time {
	t := start.Add(d)
	e.clock.Set(t)
	return t
}

// byURL indexes pages by URL.
func byURL(pages []synthweb.PageInfo) map[string]synthweb.PageInfo {
	m := make(map[string]synthweb.PageInfo, len(pages))
	for _, p := range pages {
		m[p.URL] = p
	}
	return m
}

// linkedFrom returns the pages whose links include u.
func linkedFrom(pages []synthweb.PageInfo, u string) []synthweb.PageInfo {
	var out []synthweb.PageInfo
	for _, p := range pages {
		for _, l := range p.Links {
			if l == u {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// pathOf strips scheme and host.
func pathOf(u string) string {
	const scheme = "http://"
	rest := u[len(scheme):]
	for i := range rest {
		if rest[i] == '/' {
			return rest[i:]
		}
	}
	return "/"
}
