package replay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/internal/datasets"
)

// opened caches the real archives across tests: they are immutable, and
// opening digitalgov-2023 under -race costs a second.
var opened struct {
	sync.Mutex
	m map[string]*archive.Archive
}

// realArchive opens a real archive of the shared data, failing the test if
// the data is missing.
func realArchive(tb testing.TB, name string) *archive.Archive {
	tb.Helper()
	dir := datasets.Path(tb, "archives", name)
	opened.Lock()
	defer opened.Unlock()
	if a := opened.m[name]; a != nil {
		return a
	}
	a, err := archive.Open(dir)
	if err != nil {
		tb.Fatalf("open %s: %v", name, err)
	}
	if opened.m == nil {
		opened.m = map[string]*archive.Archive{}
	}
	opened.m[name] = a
	return a
}

// fixtureArchive writes f into a temporary directory and opens it.
func fixtureArchive(tb testing.TB, f archivetest.Fixture) *archive.Archive {
	tb.Helper()
	dir := tb.TempDir()
	archivetest.Write(tb, dir, f)
	a, err := archive.Open(dir)
	if err != nil {
		tb.Fatalf("open fixture: %v", err)
	}
	return a
}

// testWeb serves archives on a loopback httptest server.
type testWeb struct {
	srv  *Server
	ts   *httptest.Server
	host string // Host header sent by get/do
}

func newTestWeb(tb testing.TB, opts Options, archives ...*archive.Archive) *testWeb {
	tb.Helper()
	srv, err := New(archives, opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(srv)
	tb.Cleanup(ts.Close)
	return &testWeb{srv: srv, ts: ts, host: archives[0].Name() + ".test"}
}

// response is what a test looks at in an HTTP response.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request for path with the web's Host and extra header fields
// (each a name and value) over loopback TCP.
func (web *testWeb) do(tb testing.TB, method, path string, header ...string) response {
	tb.Helper()
	return web.doHost(tb, web.host, method, path, header...)
}

func (web *testWeb) doHost(tb testing.TB, host, method, path string, header ...string) response {
	tb.Helper()
	r, err := web.try(tb.Context(), host, method, path, header...)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// try is doHost for goroutines other than the test's: it returns the error.
func (web *testWeb) try(ctx context.Context, host, method, path string, header ...string) (response, error) {
	req, err := http.NewRequestWithContext(ctx, method, web.ts.URL+path, nil)
	if err != nil {
		return response{}, fmt.Errorf("request %s: %w", path, err)
	}
	req.Host = host
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := web.ts.Client().Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	return response{resp.StatusCode, resp.Header, body}, nil
}

func (web *testWeb) get(tb testing.TB, path string, header ...string) response {
	tb.Helper()
	return web.do(tb, http.MethodGet, path, header...)
}

func (web *testWeb) setWeek(tb testing.TB, w int) {
	tb.Helper()
	if err := web.srv.SetWeek(w); err != nil {
		tb.Fatal(err)
	}
}

// etagOf returns the ETag a body must carry: its manifest hash, quoted.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}
