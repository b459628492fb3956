package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/deltaq/deltaq/eval/fanouteval"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
)

// changingPage serves body as HTML on loopback until the test ends; set
// replaces it.
func changingPage(t *testing.T, body string) (url string, set func(string)) {
	var mu sync.Mutex
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, body)
	}))
	t.Cleanup(site.Close)
	return site.URL + "/fees", func(b string) {
		mu.Lock()
		body = b
		mu.Unlock()
	}
}

func TestWatchCommands(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true") // the page is on loopback
	u, _ := changingPage(t, `<html><body><table id="t"><tr><td>fee</td><td>0</td></tr></table></body></html>`)
	data := t.TempDir()

	out, _, err := run(t, "watch", "test", u, "--type", "table", "--select", "#t", "--data", data)
	if err != nil || !strings.Contains(out, "fee | 0") {
		t.Fatalf("watch test: %v\n%s", err, out)
	}
	out, _, err = run(t, "watch", "add", u, "--type", "table", "--select", "#t", "--every", "1h", "--notify", "feed", "--until", "2030-01-01", "--user", "ada", "--data", data)
	if err != nil || !strings.Contains(out, "installed w1: table sentinel") || !strings.Contains(out, "until 2030-01-01") {
		t.Fatalf("watch add: %v\n%s", err, out)
	}
	if out, _, err = run(t, "watch", "list", "--data", data); err != nil || !strings.Contains(out, "w1\ttable\t"+u) {
		t.Errorf("watch list: %v\n%s", err, out)
	}
	if out, _, err = run(t, "watch", "show", "w1", "--data", data); err != nil || !strings.Contains(out, `"select": "#t"`) || !strings.Contains(out, `"every": "`) {
		t.Errorf("watch show: %v\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"watch", "add", u, "--type", "colour"}, "type = colour: must be one of any"},
		{[]string{"watch", "add", u, "--every", "soon"}, "--every = soon: must be a duration"},
		{[]string{"watch", "add", u, "--every", "0"}, "--every = 0: must be a duration > 0 such as 30m or 6h; leave it out for the default (24h0m0s)"},
		{[]string{"watch", "add", u, "--every", "-1h"}, "--every = -1h: must be a duration > 0"},
		{[]string{"watch", "add", u, "--notify", "sms:1"}, `notify "sms:1"`},
		{[]string{"watch", "add", u, "--until", "tomorrow"}, "--until = tomorrow: must be a date"},
		{[]string{"watch", "show", "w9"}, `no sentinel "w9" (deltaq watch list shows them)`},
		{[]string{"watch", "rm", "w9"}, `no sentinel "w9"`},
		{[]string{"alert", "rm", "a9"}, `no alert "a9" (deltaq alert list shows them)`},
		{[]string{"alert", "rm", "w1"}, `no alert "w1"`},
		{[]string{"alert", "add", `"unclosed`}, `QUERY "\"unclosed": unclosed quote at byte 1 (want quotes in pairs`},
		{[]string{"alert", "add", ""}, `QUERY "": empty query (want at least one word)`},
		{[]string{"alert", "add", "fees site:"}, `QUERY "fees site:": site: with no host name (want site:HOST, a host name such as site:example.org)`},
		{[]string{"alert", "add", "fees site:a.gov/x"}, `QUERY "fees site:a.gov/x": site:a.gov/x: not a host name (want site:HOST, a host name such as site:example.org)`},
		{[]string{"alert", "add", "site:a.gov"}, `QUERY "site:a.gov": nothing to search for: exclusions and site: only narrow a search (want at least one word or "phrase")`},
		{[]string{"alert", "add", "fees"}, "--notify: (0 targets): at least 1: webhook:URL, email:ADDR or feed"},
		{append([]string{"watch", "add", u}, slices.Repeat([]string{"--notify", "feed"}, 11)...), "--notify: (11 targets): at most 10 (notify.max_targets)"},
		{append([]string{"alert", "add", "fees"}, slices.Repeat([]string{"--notify", "feed"}, 11)...), "--notify: (11 targets): at most 10 (notify.max_targets)"},
		{[]string{"watch", "key", "ada lovelace"}, `USER = "ada lovelace": must be 1 to 64 bytes of ASCII letters, digits, '.', '_', '-' and '@'`},
		{[]string{"watch", "key", strings.Repeat("a", 5000)}, `USER = "` + strings.Repeat("a", 40) + `"… (5000 bytes): must be 1 to 64 bytes`},
		{[]string{"watch", "key", "ada\x07"}, `USER = "ada\a": must be`},
		{[]string{"watch", "add", u, "--user", "ada\x07"}, `user = "ada\a": must be 1 to 64 bytes`},
		{[]string{"alert", "add", "fees", "--notify", "feed", "--user", "ada lovelace"}, `--user = "ada lovelace": must be 1 to 64 bytes`},
	} {
		if _, _, err := run(t, append(c.args, "--data", data)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
	if out, _, err = run(t, "alert", "add", "plain language", "--notify", "feed", "--data", data); err != nil || !strings.Contains(out, "added a1") {
		t.Errorf("alert add: %v\n%s", err, out)
	}
	if out, _, err = run(t, "watch", "key", "ada", "--data", data); err != nil || !strings.HasPrefix(out, "dqw_") {
		t.Errorf("watch key: %v\n%s", err, out)
	}
	if out, _, err = run(t, "watch", "history", "w1", "--data", data); err != nil || !strings.Contains(out, "0 changes") {
		t.Errorf("watch history: %v\n%s", err, out)
	}
	if out, _, err = run(t, "watch", "rm", "w1", "--data", data); err != nil || !strings.Contains(out, "removed w1") {
		t.Errorf("watch rm: %v\n%s", err, out)
	}
}

// watch add and watch test fetch through the crawler's dialer and take its
// flags, so a page of a test web on loopback can be watched under its name.
func TestWatchAddAndTestTakeTheDialFlags(t *testing.T) {
	u, _ := changingPage(t, `<html><body><a href="/a">a</a></body></html>`)
	addr := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/fees")
	const named = "http://fees.test/fees"
	data := t.TempDir()
	resolve := []string{"--data", data, "--resolve", "fees.test=" + addr}
	if _, _, err := run(t, append([]string{"watch", "add", named, "--type", "links"}, resolve...)...); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("watch add of a loopback page without --allow-private: %v, want it refused as loopback", err)
	}
	out, _, err := run(t, append([]string{"watch", "test", named, "--type", "links", "--allow-private"}, resolve...)...)
	if err != nil || !strings.Contains(out, "http://fees.test/a") {
		t.Errorf("watch test --resolve --allow-private: %v\n%s", err, out)
	}
	out, _, err = run(t, append([]string{"watch", "add", named, "--type", "links", "--allow-private"}, resolve...)...)
	if err != nil || !strings.Contains(out, "installed w1: links sentinel on "+named) {
		t.Errorf("watch add --resolve --allow-private: %v\n%s", err, out)
	}
}

// A --notify value is one target even with a comma in it, as a webhook
// URL may have: the flag is repeated for more targets, not split.
func TestNotifyTakesACommaInAWebhookURL(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true") // the page is on loopback
	u, _ := changingPage(t, `<html><body><p>fees</p></body></html>`)
	data := t.TempDir()
	const hook = "webhook:https://hooks.example/a,b"
	out, _, err := run(t, "watch", "add", u, "--notify", hook, "--notify", "feed", "--data", data)
	if err != nil || !strings.Contains(out, "installed w1") {
		t.Fatalf("watch add --notify %s: %v\n%s", hook, err, out)
	}
	if out, _, err = run(t, "watch", "show", "w1", "--data", data); err != nil || !strings.Contains(out, "https://hooks.example/a,b") {
		t.Errorf("watch show: %v, want the webhook https://hooks.example/a,b\n%s", err, out)
	}
	if out, _, err = run(t, "alert", "add", "fees", "--notify", hook, "--data", data); err != nil || !strings.Contains(out, "added a1") {
		t.Errorf("alert add --notify %s: %v\n%s", hook, err, out)
	}
}

// watch history shows the failed checks of a page beside its changes: a
// page answering 503 twice is one line with the count, its kind and its
// error, and the summary counts the failed checks.
func TestWatchHistoryShowsFailedChecks(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true") // the page is on loopback
	var mu sync.Mutex
	status := 0
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if status != 0 {
			http.Error(w, http.StatusText(status), status)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><body><p>fees</p></body></html>`)
	}))
	t.Cleanup(site.Close)
	u := site.URL + "/fees"
	data := t.TempDir()
	if out, _, err := run(t, "watch", "add", u, "--every", "1h", "--data", data); err != nil || !strings.Contains(out, "installed w1") {
		t.Fatalf("watch add: %v\n%s", err, out)
	}
	mu.Lock()
	status = http.StatusServiceUnavailable
	mu.Unlock()
	cfg, db := openData(t, data)
	cfg.Crawler.AllowPrivate = true
	e, err := openWatches(db, cfg, notify.NewOutbox(db, cfg.Notify), nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.Check(t.Context(), u); err == nil {
			t.Error("a check of a page answering 503 succeeded")
		}
	}
	if err := errors.Join(e.Close(), db.Close()); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "watch", "history", "w1", "--data", data)
	if err != nil || !strings.Contains(out, "\tfailed\t2 checks to ") || !strings.Contains(out, "\tstatus\twatch: fetch "+u+": status 503") ||
		!strings.Contains(out, "0 changes, 2 failed checks") {
		t.Errorf("watch history: %v\n%s", err, out)
	}
}

// watch feed-url prints the feed URLs a reader subscribes to, with the
// key's feed token and not the key; watch revoke-key ends the key, and
// feed-url then refuses it.
func TestWatchFeedURLAndRevokeKey(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true") // the page is on loopback
	u, _ := changingPage(t, `<html><body><p>fees</p></body></html>`)
	data := t.TempDir()
	if out, _, err := run(t, "watch", "add", u, "--user", "ada", "--notify", "feed", "--data", data); err != nil || !strings.Contains(out, "installed w1") {
		t.Fatalf("watch add: %v\n%s", err, out)
	}
	if out, _, err := run(t, "alert", "add", "fees", "--user", "ada", "--notify", "feed", "--data", data); err != nil || !strings.Contains(out, "added a1") {
		t.Fatalf("alert add: %v\n%s", err, out)
	}
	out, _, err := run(t, "watch", "key", "ada", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out)
	out, _, err = run(t, "watch", "feed-url", key, "--base", "https://dq.example/", "--data", data)
	if err != nil || !strings.Contains(out, "https://dq.example/api/v1/feed?token=dqf_") || !strings.Contains(out, "every watch and alert of ada") ||
		!strings.Contains(out, "https://dq.example/api/v1/watches/w1/feed?token=dqf_") || !strings.Contains(out, "https://dq.example/api/v1/alerts/a1/feed?token=dqf_") ||
		!strings.Contains(out, `a1 alert "fees"`) || strings.Contains(out, strings.TrimPrefix(key, "dqw_")) {
		t.Fatalf("watch feed-url: %v\n%s", err, out)
	}
	again, _, err := run(t, "watch", "feed-url", key, "--base", "https://dq.example", "--data", data)
	if err != nil || again != out {
		t.Errorf("watch feed-url a second time: %v\n%s\nwant the same URLs\n%s", err, again, out)
	}
	// Given as -, the key is read from standard input, as a paste leaves it.
	fromStdin := func(stdin string, args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		cmd := newRootCmd(&stdout, &stderr)
		cmd.SetIn(strings.NewReader(stdin))
		cmd.SetArgs(append(args, "--data", data))
		err := cmd.ExecuteContext(t.Context())
		return stdout.String(), err
	}
	if piped, err := fromStdin(key+"\r\n", "watch", "feed-url", "-", "--base", "https://dq.example"); err != nil || piped != out {
		t.Errorf("watch feed-url - with the key on stdin: %v\n%s\nwant\n%s", err, piped, out)
	}
	if _, err := fromStdin("\n"+key, "watch", "revoke-key", "-"); err == nil || !strings.Contains(err.Error(), "KEY -: standard input holds no key") {
		t.Errorf("watch revoke-key - with an empty first line: %v, want refused", err)
	}
	if out, err := fromStdin(key, "watch", "revoke-key", "-"); err != nil || !strings.Contains(out, "revoked a key of ada and its feed token") {
		t.Errorf("watch revoke-key: %v\n%s", err, out)
	}
	// A feed token given for the key is named as one, not as an unknown key.
	token := strings.Fields(out)[0][strings.Index(out, "token=")+len("token="):]
	if !strings.HasPrefix(token, "dqf_") {
		t.Fatalf("token %q in %s", token, out)
	}
	for _, args := range [][]string{{"watch", "feed-url", token}, {"watch", "revoke-key", token}} {
		if _, _, err := run(t, append(args, "--data", data)...); err == nil || !strings.Contains(err.Error(), "KEY: a feed token (dqf_…)") || !strings.Contains(err.Error(), "starts with dqw_") {
			t.Errorf("%v with the feed token: %v, want it named a feed token, not a key", args[:2], err)
		}
	}
	if _, err := fromStdin(token+"\n", "watch", "revoke-key", "-"); err == nil || !strings.Contains(err.Error(), "KEY -: a feed token") {
		t.Errorf("watch revoke-key - with the feed token on stdin: %v, want it named a feed token", err)
	}
	for _, args := range [][]string{{"watch", "feed-url", key}, {"watch", "revoke-key", key}} {
		if _, _, err := run(t, append(args, "--data", data)...); err == nil || !strings.Contains(err.Error(), "KEY: no such key here") {
			t.Errorf("%v after the revoke: %v, want KEY: no such key here", args, err)
		}
	}
}

// TestWatchKeysOfARunningServer makes and revokes a key through the admin
// listener of a running deltaq serve, which holds the repository that
// --data would need: the key works on the public API at once and is
// refused once revoked.
func TestWatchKeysOfARunningServer(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	fillData(t, data, []fanouteval.Page{{URL: "http://fruit.test/", Host: "fruit.test", Title: "Fruit", Text: "Apples."}})
	cfgFile := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(cfgFile, []byte("server:\n  admin:\n    listen: 127.0.0.1:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := serveNode(t, dir, "serve", "--data", data, "--config", cfgFile)
	admin := srv.adminBase(t)

	if _, _, err := run(t, "watch", "key", "ada", "--data", data); !errors.Is(err, repo.ErrInUse) || !strings.Contains(err.Error(), "watch API keys through its admin listener") {
		t.Fatalf("watch key --data while served: %v; want in use, pointing to the admin listener", err)
	}
	out, _, err := run(t, "watch", "key", "ada", "--min-every", "30m", "--server", admin)
	key := strings.TrimSpace(out)
	if err != nil || !strings.HasPrefix(key, "dqw_") {
		t.Fatalf("watch key --server: %v\n%s", err, out)
	}
	watches := func() int {
		req, _ := http.NewRequest("GET", srv.base+"/api/v1/watches", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := watches(); code != http.StatusOK {
		t.Fatalf("the key made through the admin listener: %d", code)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"watch", "key", "ada", "--max-watches", "0", "--server", admin}, "max_watches"},
		{[]string{"watch", "key", "ada", "--server", srv.base}, "admin listener"},
		{[]string{"watch", "key", "ada", "--server", admin, "--data", data}, errDataAndServer.Error()},
		{[]string{"watch", "revoke-key", key, "--server", admin, "--data", data}, errDataAndServer.Error()},
	} {
		if _, _, err := run(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v; want an error naming %s", c.args, err, c.want)
		}
	}
	if out, _, err := run(t, "watch", "revoke-key", key, "--server", admin); err != nil || !strings.Contains(out, "revoked a key of ada") {
		t.Fatalf("watch revoke-key --server: %v\n%s", err, out)
	}
	if code := watches(); code != http.StatusUnauthorized {
		t.Errorf("the revoked key: %d; want 401", code)
	}
	if _, _, err := run(t, "watch", "revoke-key", key, "--server", admin); err == nil || !strings.Contains(err.Error(), "no such key") {
		t.Errorf("revoking again: %v; want no such key", err)
	}
}

// watch test shows a keywords sentinel's flag when it is false (the
// keywords are not all on the page), which is all its object says; the
// other types have no flag to show.
func TestWatchTestShowsAFalseKeywordsFlag(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true") // the page is on loopback
	u, _ := changingPage(t, `<html><body><p>fees are due in March</p></body></html>`)
	data := t.TempDir()
	for _, c := range []struct {
		args       []string
		want, lack string
	}{
		{[]string{"--type", "keywords", "--keywords", "refund"}, `"flag": false`, ""},
		{[]string{"--type", "keywords", "--keywords", "fees,march"}, `"flag": true`, ""},
		{[]string{"--type", "words"}, `"set": [`, `"flag"`},
	} {
		out, _, err := run(t, append([]string{"watch", "test", u, "--data", data}, c.args...)...)
		if err != nil || !strings.Contains(out, c.want) || (c.lack != "" && strings.Contains(out, c.lack)) {
			t.Errorf("watch test %v: %v; want %s and no %q\n%s", c.args, err, c.want, c.lack, out)
		}
	}
}

// watch feed-url takes as --base only an absolute http(s) URL to put the
// feed paths after, and without one turns a wildcard server.listen into
// 127.0.0.1, saying --base is the address feed readers reach.
func TestWatchFeedURLBase(t *testing.T) {
	data := t.TempDir()
	out, _, err := run(t, "watch", "key", "ada", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out)
	for _, base := range []string{"javascript:alert(1)", "https://x/a b?x=1#f", "https://x/?x=1", "https://x/#f", "https://x/?", "ftp://x/", "/api", "dq.example",
		"https://user:pw@x/", "https://", strings.Repeat("https://x/", 100) + "?"} {
		_, _, err := run(t, "watch", "feed-url", key, "--base", base, "--data", data)
		if err == nil || !strings.Contains(err.Error(), "--base = ") || !strings.Contains(err.Error(), "must be an absolute http:// or https:// URL with a host and no query, fragment") ||
			len(err.Error()) > 300 {
			t.Errorf("--base %.40q: %v; want it refused, naming --base, the value and the limit", base, err)
		}
	}
	for _, c := range []struct{ listen, want, note string }{
		{"0.0.0.0:18080", "http://127.0.0.1:18080/api/v1/feed?token=dqf_", "give --base, the server's URL as feed readers reach it"},
		{":18080", "http://127.0.0.1:18080/api/v1/feed?token=dqf_", "give --base"},
		{"[::]:18080", "http://127.0.0.1:18080/api/v1/feed?token=dqf_", "give --base"},
		{"10.0.0.5:18080", "http://10.0.0.5:18080/api/v1/feed?token=dqf_", ""},
	} {
		t.Setenv("DELTAQ_SERVER_LISTEN", c.listen)
		out, stderr, err := run(t, "watch", "feed-url", key, "--data", data)
		if err != nil || !strings.HasPrefix(out, c.want) || (c.note == "") != (stderr == "") || !strings.Contains(stderr, c.note) {
			t.Errorf("server.listen %s: %v\n%s%s\nwant %s and a note saying %q", c.listen, err, out, stderr, c.want, c.note)
		}
	}
}

// TestKeysAreNotMadeInADataDirectoryThatIsNotThere: watch key and notify
// secret given a --data that does not exist refuse it as ads
// create-advertiser does and leave it uncreated, rather than start a
// repository there and print a key no server uses.
func TestKeysAreNotMadeInADataDirectoryThatIsNotThere(t *testing.T) {
	for _, args := range [][]string{{"watch", "key", "ada"}, {"notify", "secret"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "typo")
			_, _, want := run(t, "ads", "create-advertiser", "--data", data, "--name", "X")
			if want == nil {
				t.Fatalf("ads create-advertiser --data %s: no error", data)
			}
			out, _, err := run(t, append(args, "--data", data)...)
			if err == nil || err.Error() != want.Error() {
				t.Errorf("--data %s: %v (output %q), want %q as ads create-advertiser", data, err, out, want)
			}
			if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: %v, want it left uncreated", data, err)
			}
		})
	}
}
