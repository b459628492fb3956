// Package httpserver runs an http.Handler with every timeout and size limit
// taken from configuration, and shuts it down gracefully when its context
// ends (SIGINT/SIGTERM in the binary).
//
//	err := httpserver.Run(ctx, cfg.Server.HTTP, handler, httpserver.Options{
//		Logger: logger,
//		Ready:  func(addr string) { fmt.Println("listening on", addr) },
//	})
package httpserver

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config holds the server's limits; defaults live in configs/default.yaml
// under "server.http".
type Config struct {
	ReadHeaderTimeout time.Duration `mapstructure:"read_header_timeout"`
	ReadTimeout       time.Duration `mapstructure:"read_timeout"`
	WriteTimeout      time.Duration `mapstructure:"write_timeout"`
	IdleTimeout       time.Duration `mapstructure:"idle_timeout"`
	MaxHeaderBytes    int           `mapstructure:"max_header_bytes"`
	ShutdownTimeout   time.Duration `mapstructure:"shutdown_timeout"`
}

// maxHeaderBytes bounds max_header_bytes: a client may make each
// connection buffer that much, 16 times net/http's default.
const maxHeaderBytes = 16 << 20

// Validate reports every problem in c, naming keys under prefix.
func (c Config) Validate(prefix string) error {
	report := bounds.NewReport(prefix)
	report.Add("read_header_timeout", c.ReadHeaderTimeout, bounds.AboveZero(c.ReadHeaderTimeout))
	report.Add("read_timeout", c.ReadTimeout, bounds.AboveZero(c.ReadTimeout))
	report.Add("write_timeout", c.WriteTimeout, bounds.AboveZero(c.WriteTimeout))
	report.Add("idle_timeout", c.IdleTimeout, bounds.AboveZero(c.IdleTimeout))
	report.Add("shutdown_timeout", c.ShutdownTimeout, bounds.AboveZero(c.ShutdownTimeout))
	report.Add("max_header_bytes", c.MaxHeaderBytes, bounds.Limit(c.MaxHeaderBytes, 4096, maxHeaderBytes))
	return report.Err()
}

// Options are the non-configuration inputs of Run.
type Options struct {
	Logger *slog.Logger
	// Ready is called with the address actually listened on.
	Ready func(addr string)
	// TryNextPorts, when > 0, moves on to the next port (up to this many)
	// if the one asked for is taken, as `deltaq demo` does.
	TryNextPorts int
}

// Listen opens addr, or with tries > 0 the first free port from addr's
// port upward.
func Listen(addr string, tries int) (net.Listener, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: port: %w", addr, err)
	}
	var first error
	for i := 0; i <= tries; i++ {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port+i)))
		if err == nil {
			return ln, nil
		}
		if first == nil {
			first = err
		}
		if port == 0 {
			break
		}
	}
	return nil, fmt.Errorf("listen %s: %w", addr, first)
}

// Run serves h on addr until ctx ends, then shuts down, letting requests in
// flight finish within cfg.ShutdownTimeout.
func Run(ctx context.Context, addr string, cfg Config, h http.Handler, opts Options) error {
	ln, err := Listen(addr, opts.TryNextPorts)
	if err != nil {
		return err
	}
	return Serve(ctx, ln, cfg, h, opts)
}

// Serve is Run on an open listener.
func Serve(ctx context.Context, ln net.Listener, cfg Config, h http.Handler, opts Options) error {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	addr := ln.Addr().String()
	if opts.Ready != nil {
		opts.Ready(addr)
	}
	logger.Info("http server listening", "addr", addr)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		// Said here, not only returned: a process stopping on a signal
		// keeps the first error of its loops, the signal's, and a request
		// cut short would go unmentioned.
		logger.Warn("http server: requests still in flight after shutdown_timeout are cut", "addr", addr, "shutdown_timeout", cfg.ShutdownTimeout, "err", err)
		srv.Close()
		return fmt.Errorf("http server: shutdown: %w", err)
	}
	logger.Info("http server stopped", "addr", addr)
	return nil
}
