package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/eval/synthweb"
	"github.com/deltaq/deltaq/internal/httpserver"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/watch"
	"github.com/deltaq/deltaq/web"
)

func (a *app) newDemoCmd() *cobra.Command {
	var keep string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Crawl the synthetic evolving web on loopback and search it (no network, no setup)",
		Long: `Demo starts the project's synthetic evolving web (web.synth) on loopback,
crawls it with the ΔQ recrawl policy and OD-WIN discovery, serves search on
server.listen (or the next free port), prints the URL and a few sample
queries, and keeps re-crawling as the synthetic web changes. The data lives
in a temporary directory removed at exit, unless --data names one to keep.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			logger := a.logger(cfg)
			synth, err := synthweb.New(synthweb.Options{Config: cfg.Web.Synth, Logger: logger})
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return fmt.Errorf("synthetic web: %w", err)
			}
			demoConfig(cfg, synth.Hosts(), ln.Addr().String())
			dataDir := keep
			if dataDir == "" {
				if dataDir, err = os.MkdirTemp("", "deltaq-demo-"); err != nil {
					return err
				}
				defer os.RemoveAll(dataDir)
			}
			queries := synth.SampleQueries(cfg.Demo.Queries)
			workload := make([]querylog.Query, len(queries))
			for i, q := range queries {
				workload[i] = querylog.Query{Text: q, Count: float64(len(queries) - i)}
			}
			fmt.Fprintf(a.stdout, "synthetic web: %d sites on %s; data in %s\n", cfg.Web.Synth.Sites, ln.Addr(), dataDir)
			g, gctx := errgroup.WithContext(ctx)
			g.Go(func() error {
				return httpserver.Serve(gctx, ln, testWebHTTP, synth, httpserver.Options{Logger: logger})
			})
			g.Go(func() error {
				return a.runEngine(gctx, cfg, dataDir, synth.SeedURLs(), serviceOptions{workload: workload}, cfg.Demo.PortTries,
					func(s *services, addr string) { go a.announce(gctx, s, addr, queries, cfg.Monitor.Instant) })
			})
			return ignoreCanceled(g.Wait())
		},
	}
	cmd.Flags().StringVar(&keep, "data", "", "keep the demo's data in this directory")
	cmd.Flags().String("listen", "", "address to listen on (server.listen)")
	cmd.Flags().Int64("seed", 0, "seed of the synthetic web (web.synth.seed)")
	bind(cmd.Flags(), map[string]string{
		"listen": "server.listen",
		"seed":   "web.synth.seed",
	})
	return cmd
}

// demoConfig points the crawl at the synthetic web and applies the demo
// section of the configuration.
func demoConfig(cfg *configs.Config, hosts []string, addr string) {
	cfg.Crawler.AllowPrivate = true
	cfg.Crawler.Resolve = nil
	cfg.Crawler.Politeness.Overrides = nil
	for _, h := range hosts {
		cfg.Crawler.Resolve = append(cfg.Crawler.Resolve, h+"="+addr)
		cfg.Crawler.Politeness.Overrides = append(cfg.Crawler.Politeness.Overrides,
			crawler.HostOverride{Host: h, MinDelay: cfg.Demo.MinDelay, PerHost: cfg.Demo.PerHost})
	}
	cfg.Frontier.Policy = cfg.Demo.Policy
	cfg.Frontier.Budget = cfg.Demo.Budget
	cfg.Frontier.Split = cfg.Demo.Split
	cfg.Ranking.PageRank.Interval = cfg.Demo.PageRankInterval
}

// announce prints sample queries once the index answers the first of them,
// and an API key for watches whose shortest wished interval is one
// monitoring instant, as the synthetic web changes by the minute.
func (a *app) announce(ctx context.Context, s *services, addr string, queries []string, instant time.Duration) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		if n, err := s.ix.Count(); err == nil && n > 0 {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
	fmt.Fprintf(a.stdout, "first pages are searchable; try:\n")
	for _, q := range queries[:min(5, len(queries))] {
		fmt.Fprintf(a.stdout, "  http://%s/?q=%s\n", addr, url.QueryEscape(q))
	}
	fmt.Fprintf(a.stdout, "  http://%s/api/v1/search?q=%s\n", addr, url.QueryEscape(queries[0]))
	// Keys are made from the command line, which cannot open the
	// repository the demo holds, so the demo makes one to try watches
	// and search alerts with.
	k := watch.DefaultKeyLimits
	k.User, k.MinEvery = "demo", instant
	if key, err := s.watches.CreateKey(ctx, k); err != nil {
		fmt.Fprintf(a.stderr, "demo: no API key for watches: %v\n", err)
	} else {
		fmt.Fprintf(a.stdout, "watches and search alerts: http://%s%s with the API key of user demo:\n  %s\n", addr, web.WatchPath, key)
	}
	fmt.Fprintln(a.stdout, "(the web keeps changing; deltaq keeps re-crawling. Ctrl-C stops.)")
}
