package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// demo is a running `deltaq demo` process.
type demo struct {
	*proc
	base    string   // http://host:port of the search server
	queries []string // the sample queries it printed
	key     string   // the watch API key it printed
}

// startDemo runs the real binary and waits until it reports searchable
// pages; the test's deadline bounds the wait.
func startDemo(t *testing.T) *demo {
	t.Helper()
	cmd := exec.Command(binary, "demo", "--listen", "127.0.0.1:0", "--log-level", "warn")
	// The demo removes its data directory when it stops cleanly; one
	// killed at the test's end leaves it, so it is made in the test's own.
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	d := &demo{proc: startProc(t, cmd, func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	})}
	for line := range lines {
		if rest, ok := strings.CutPrefix(line, "search: "); ok {
			d.base = strings.TrimSuffix(rest, "/")
		}
		if q, ok := strings.CutPrefix(strings.TrimSpace(line), d.base+"/?q="); ok && d.base != "" {
			u, _ := url.QueryUnescape(q)
			d.queries = append(d.queries, u)
		}
		if k, ok := strings.CutPrefix(strings.TrimSpace(line), "dqw_"); ok {
			d.key = "dqw_" + k
		}
		if strings.HasPrefix(line, "(the web keeps changing") {
			go func() {
				for range lines { // keep draining so the process never blocks on stdout
				}
			}()
			return d
		}
	}
	<-d.exited
	t.Fatalf("demo exited before serving: %v", d.err)
	return nil
}

type apiResults struct {
	Total   int `json:"total"`
	Results []struct {
		URL      string `json:"url"`
		ClickURL string `json:"click_url"`
	} `json:"results"`
}

func (d *demo) search(t *testing.T, q string) apiResults {
	t.Helper()
	res, err := http.Get(d.base + "/api/v1/search?q=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r apiResults
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDemoServesSearchAndStopsOnSignal runs `deltaq demo` with no network
// and no data files: its sample queries find pages, a result's click link
// redirects to the page, and SIGINT stops it cleanly.
func TestDemoServesSearchAndStopsOnSignal(t *testing.T) {
	d := startDemo(t)
	if len(d.queries) == 0 {
		t.Fatal("the demo printed no sample queries")
	}
	r := d.search(t, d.queries[0])
	if r.Total == 0 || len(r.Results) == 0 {
		t.Fatalf("sample query %q found nothing", d.queries[0])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(d.base + r.Results[0].ClickURL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != r.Results[0].URL {
		t.Fatalf("click link: %d to %q, want 302 to %q", res.StatusCode, res.Header.Get("Location"), r.Results[0].URL)
	}
	// The key it printed installs a watch on a page it found, wishing a
	// check every minute (the synthetic web changes by the minute), which
	// the key's list then shows.
	if d.key == "" {
		t.Fatal("the demo printed no watch API key")
	}
	watches := func(method, body string) (int, string) {
		req, err := http.NewRequest(method, d.base+"/api/v1/watches", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+d.key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	target, _ := json.Marshal(r.Results[0].URL)
	if code, body := watches(http.MethodPost, `{"url": `+string(target)+`, "type": "any", "every": "1m"}`); code != http.StatusCreated {
		t.Fatalf("POST /api/v1/watches with the demo's key: %d %s", code, body)
	}
	if code, body := watches(http.MethodGet, ""); code != http.StatusOK || !strings.Contains(body, string(target)) {
		t.Fatalf("GET /api/v1/watches with the demo's key: %d %s, want the watch on %s", code, body, target)
	}
	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.exited:
		if d.err != nil {
			t.Fatalf("demo exited with %v after SIGINT, want a clean exit", d.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("demo did not stop within 30 s of SIGINT")
	}
}
