package httpserver

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

var cfg = Config{ReadHeaderTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
	IdleTimeout: time.Second, MaxHeaderBytes: 1 << 16, ShutdownTimeout: 5 * time.Second}

func TestServeAnswersAndShutsDownGracefully(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(entered)
			<-release
		}
		io.WriteString(w, "ok")
	})
	ctx, cancel := context.WithCancel(t.Context())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	var log bytes.Buffer // written by Run alone, read once it returned
	logger := slog.New(slog.NewTextHandler(&log, nil))
	go func() {
		done <- Run(ctx, "127.0.0.1:0", cfg, h, Options{Ready: func(a string) { addrc <- a }, Logger: logger})
	}()
	addr := <-addrc
	res, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("body = %q", body)
	}
	// A request in flight at shutdown still completes.
	slow := make(chan string, 1)
	go func() {
		res, err := http.Get("http://" + addr + "/slow")
		if err != nil {
			slow <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		slow <- string(b)
	}()
	<-entered
	cancel()
	close(release)
	if got := <-slow; got != "ok" {
		t.Fatalf("request in flight at shutdown got %q", got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// A process runs several servers: each line says which one.
	for _, msg := range []string{"http server listening", "http server stopped"} {
		if want := `msg="` + msg + `" addr=` + addr; !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, log.String())
		}
	}
}

func TestListenTriesTheNextPorts(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	if _, err := Listen(addr, 0); err == nil {
		t.Fatal("listening on a taken port succeeded without retries")
	}
	ln, err := Listen(addr, 20)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ln.Addr().String() == addr {
		t.Fatal("got the taken address")
	}
}

func TestConfigValidateNamesKeys(t *testing.T) {
	err := Config{}.Validate("server.http.")
	if err == nil || !strings.Contains(err.Error(), "server.http.read_timeout = 0s: must be > 0") {
		t.Fatalf("Validate() = %v", err)
	}
}

// TestConfigBoundsHeaderBytes: a header limit past the bound, memory a
// client can make each connection hold, is refused with the key and the
// range; the bound is accepted.
func TestConfigBoundsHeaderBytes(t *testing.T) {
	fresh := func() Config {
		return Config{ReadHeaderTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
			IdleTimeout: time.Second, MaxHeaderBytes: 65536, ShutdownTimeout: time.Second}
	}
	validate := func(c *Config) error { return c.Validate("server.http.") }
	boundstest.CheckExact(t, "server.http.", fresh, validate, []boundstest.Setting[Config]{
		{Key: "max_header_bytes", Hi: maxHeaderBytes, Limit: "must be in [4096, 16777216]", Set: func(c *Config, v int64) { c.MaxHeaderBytes = int(v) }},
	})
}

// TestShutdownSaysWhatItCut: a request still running when
// shutdown_timeout ends is cut, and the log says so, since the process
// stopping on a signal reports the signal and not Serve's error.
func TestShutdownSaysWhatItCut(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
	})
	short := cfg
	short.ShutdownTimeout = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	var log bytes.Buffer // written by Run alone, read once it returned
	go func() {
		done <- Run(ctx, "127.0.0.1:0", short, h, Options{Ready: func(a string) { addrc <- a }, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	}()
	addr := <-addrc
	cut := make(chan error, 1)
	go func() {
		client := http.Client{Timeout: 10 * time.Second} // bounds the test if the request is never cut
		res, err := client.Get("http://" + addr + "/")
		if err == nil {
			res.Body.Close()
		}
		cut <- err
	}()
	<-entered
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "shutdown") {
		t.Fatalf("Run = %v, want the shutdown's error", err)
	}
	if !strings.Contains(log.String(), "requests still in flight after shutdown_timeout are cut") {
		t.Errorf("log does not say a request was cut:\n%s", log.String())
	}
	if err := <-cut; err == nil {
		t.Errorf("the request cut at shutdown got an answer")
	}
}
