package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/synthweb"
	"github.com/deltaq/deltaq/internal/httpserver"
)

func (a *app) newWebCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "web",
		Short: "Serve a test web on loopback: archive replay or the synthetic evolving web",
	}
	cmd.AddCommand(a.newWebReplayCmd(), a.newWebSynthCmd(), a.newWebFeedsCmd())
	return cmd
}

func (a *app) newWebReplayCmd() *cobra.Command {
	var (
		dirs   []string
		listen string
		week   int
		search bool
	)
	cmd := &cobra.Command{
		Use:   "replay --archive DIR... --listen ADDR --week N [--search]",
		Short: "Serve week N of weekly snapshot archives, each on <name>.test",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			if len(dirs) == 0 {
				return errors.New("--archive: at least one archive directory is required")
			}
			var archives []*archive.Archive
			for _, d := range dirs {
				ar, err := archive.Open(d)
				if err != nil {
					return fmt.Errorf("--archive %s: %w", d, err)
				}
				archives = append(archives, ar)
			}
			logger := a.logger(cfg)
			searchOpts := cfg.Web.Replay.Search
			searchOpts.Enabled = search
			srv, err := replay.New(archives, replay.Options{Latency: cfg.Web.Replay.Latency, Search: searchOpts, Logger: logger})
			if err != nil {
				return err
			}
			if err := srv.SetWeek(week); err != nil {
				return fmt.Errorf("--week %d: %w", week, err)
			}
			politeness := politenessFlag(srv.Hosts(), cfg.Web.Replay.CrawlMinDelay, cfg.Web.Replay.CrawlPerHost)
			what := fmt.Sprintf("week %d of %d", week, srv.Weeks())
			if search {
				what += "; GET /search?q=&page= is an " + replay.SearchLabel
			}
			return a.serveWeb(cmd.Context(), listen, srv, srv.Hosts(), politeness, what, logger)
		},
	}
	cmd.Flags().StringSliceVar(&dirs, "archive", nil, "archive directory (repeatable)")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8081", "address to listen on")
	cmd.Flags().IntVar(&week, "week", 0, "week to serve")
	cmd.Flags().BoolVar(&search, "search", false, "add GET /search?q=&page= (BM25 over the week's pages; p and K from web.replay.search)")
	return cmd
}

func (a *app) newWebSynthCmd() *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "synth --listen ADDR --seed N [--adversarial]",
		Short: "Serve the synthetic evolving web (and, with --adversarial, its traps)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			logger := a.logger(cfg)
			web, err := synthweb.New(synthweb.Options{Config: cfg.Web.Synth, Logger: logger})
			if err != nil {
				return err
			}
			politeness := politenessFlag(web.Hosts(), cfg.Demo.MinDelay, cfg.Demo.PerHost)
			return a.serveWeb(cmd.Context(), listen, web, web.Hosts(), politeness, fmt.Sprintf("seed %d", cfg.Web.Synth.Seed), logger)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8082", "address to listen on")
	cmd.Flags().Int64("seed", 0, "seed of the synthetic web (web.synth.seed)")
	cmd.Flags().Bool("adversarial", false, "add the trap hosts (web.synth.adversarial)")
	bind(cmd.Flags(), map[string]string{
		"seed":        "web.synth.seed",
		"adversarial": "web.synth.adversarial",
	})
	return cmd
}

// testWebHTTP are the limits of a test web's server. It sets no read or
// write deadline: the traps stream slowly or without end on purpose.
var testWebHTTP = httpserver.Config{ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, ShutdownTimeout: 5 * time.Second}

// politenessFlag is the crawl flag that relaxes politeness toward hosts
// served on loopback by a test web.
func politenessFlag(hosts []string, minDelay time.Duration, perHost int) string {
	items := make([]string, len(hosts))
	for i, h := range hosts {
		items[i] = fmt.Sprintf("{host: %s, min_delay: %s, per_host: %d}", h, minDelay, perHost)
	}
	return "--politeness-overrides '[" + strings.Join(items, ", ") + "]'"
}

// serveWeb serves h on listen until ctx ends, after telling the user how to
// point a crawl at it (with politeness, a crawl flag).
func (a *app) serveWeb(ctx context.Context, listen string, h http.Handler, hosts []string, politeness, what string, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", listen, err)
	}
	addr := ln.Addr().String()
	var resolve []string
	for _, host := range hosts {
		resolve = append(resolve, "--resolve "+host+"="+addr)
	}
	fmt.Fprintf(a.stdout, "serving %s on http://%s (hosts: %s)\n", what, addr, strings.Join(hosts, ", "))
	fmt.Fprintf(a.stdout, "crawl it with: deltaq crawl --data DIR --allow-private %s %s --seeds http://%s/\n",
		strings.Join(resolve, " "), politeness, hosts[0])
	return httpserver.Serve(ctx, ln, testWebHTTP, h, httpserver.Options{Logger: logger})
}
