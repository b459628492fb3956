package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/httpserver"
	"github.com/deltaq/deltaq/watch"
	"github.com/deltaq/deltaq/web"
)

func (a *app) newServeCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "serve --data DIR [--listen ADDR] [--resolve HOST=ADDR] [--allow-private]",
		Short: "Serve search over HTTP from a crawled repository",
		Long: `Serve brings the index up to date with the repository under --data and
answers search requests: GET /api/v1/search?q=&page=&size=&fields= (JSON), GET / (a
search page), the click redirects of results (/r) and ads (/c), GET
/api/v1/page?url= and /explain?url= (what the repository knows of a page),
/opensearch.xml, /healthz and /metrics. It also serves the ads API
(/api/v1/ads/), watches and alerts (/api/v1/watches, /api/v1/alerts,
/watches), feeds (/api/v1/feeds, /api/v1/river) and relations
(/api/v1/relations); README.md lists them. With server.admin.listen set,
/metrics, the page report, /explain and the feeds' and backups' changes move
to that listener. It stops gracefully on SIGINT/SIGTERM.

What serve fetches itself (the watches' checks, relation syncs, webhooks)
goes through the crawler's dialer: a watch added with --allow-private or
--resolve needs the same flags here (or crawler.allow_private,
crawler.resolve), or each of its checks is refused.

With --cluster the node answers its index's part of the cluster's searches
over NATS, and its own searches fan out to every node serving search
(package index/fanout): BM25 with the cluster's statistics, the best pages
of all merged; a node that does not answer within cluster.search_timeout is
left out and the answer marked partial.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, db, logger, err := a.loadCrawledRepo(cmd, dataDir, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			lns, err := listenBeforeCatchUp(&cfg.Server)
			if err != nil {
				return err
			}
			defer lns.close()
			ctx := cmd.Context()
			var node *cluster.SearchNode
			opts := serviceOptions{}
			if cfg.Cluster.URL != "" {
				opts.backend = func(ix *index.Index) (web.Backend, error) {
					var err error
					node, err = cluster.JoinSearch(ctx, cfg.Cluster, ix, cluster.SearchOptions{
						Logger: logger, Limits: cfg.Index.Limits(), Retrieval: cfg.Index.Retrieval})
					return node, err
				}
			}
			s, err := openServices(ctx, dataDir, db, cfg, logger, opts)
			if err != nil {
				return err
			}
			defer s.close(context.WithoutCancel(ctx))
			if node != nil {
				defer node.Close()
			}
			st, err := s.ix.CatchUp(ctx)
			if err != nil {
				return err
			}
			n, _ := s.ix.Count()
			fmt.Fprintf(a.stderr, "index: %d documents (%d changes applied)\n", n, st.Changes)
			g, gctx := errgroup.WithContext(ctx)
			if node != nil {
				g.Go(func() error { return node.Run(gctx) })
				fmt.Fprintf(a.stderr, "cluster: node %s serves its index and fans searches out\n", cfg.Cluster.Node)
			}
			a.serveLoops(g, gctx, s, cfg, nil, lns, 0, nil)
			err = ignoreCanceled(g.Wait())
			if node != nil {
				fmt.Fprintf(a.stderr, "cluster: %d search requests sent (%d bytes), %d answered (%d refused)\n",
					node.Stats.Requests.Load(), node.Stats.Bytes.Load(), node.Stats.Served.Load(), node.Stats.Refused.Load())
			}
			return err
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory (repository and index)")
	cmd.Flags().String("listen", "", "address to listen on (server.listen)")
	cmd.Flags().String("cluster", "", "NATS servers of a cluster, nats://host:4222,...; search fans out to every node serving search (cluster.url)")
	cmd.Flags().String("node", "", "this node's name in the cluster (cluster.node)")
	addDialFlags(cmd)
	bind(cmd.Flags(), map[string]string{
		"listen":  "server.listen",
		"cluster": "cluster.url",
		"node":    "cluster.node",
	})
	return cmd
}

// listeners are the sockets of a serving process opened before it starts
// serving; a nil one is opened when serving starts.
type listeners struct {
	search, admin net.Listener
}

// listenBeforeCatchUp opens server.listen and, when set,
// server.admin.listen: the index's catch-up may take long, and a port
// taken is said at once rather than after it. A client that connects
// meanwhile waits in the accept queue.
func listenBeforeCatchUp(cfg *web.Config) (listeners, error) {
	var lns listeners
	var err error
	if lns.search, err = httpserver.Listen(cfg.Listen, 0); err != nil {
		return lns, err
	}
	if cfg.Admin.Listen != "" {
		if lns.admin, err = httpserver.Listen(cfg.Admin.Listen, 0); err != nil {
			lns.close()
			return listeners{}, fmt.Errorf("server.admin.listen: %w", err)
		}
	}
	return lns, nil
}

// close closes what is open; http.Server closes them again when serving
// ends, to no effect.
func (l listeners) close() {
	for _, ln := range []net.Listener{l.search, l.admin} {
		if ln != nil {
			ln.Close()
		}
	}
}

// serveLoops starts what a serving process runs until ctx ends: the index
// following the repository, PageRank, ads bookkeeping, notifications,
// relation syncs, the watches' checks and the HTTP servers, on lns where
// they are open, else on server.listen (trying tryPorts ports past it) and
// server.admin.listen.
func (a *app) serveLoops(g *errgroup.Group, ctx context.Context, s *services, cfg *configs.Config, notify <-chan struct{}, lns listeners, tryPorts int, onListen func(addr string)) {
	g.Go(func() error { return s.ix.Run(ctx, notify) })
	g.Go(func() error { return s.rank.RunPageRank(ctx, cfg.Ranking.PageRank.Interval, s.ix) })
	g.Go(func() error { return s.ads.Run(ctx) })
	if admin := s.handler.Admin(); admin != nil {
		g.Go(func() error {
			opts := httpserver.Options{
				Logger: s.logger,
				Ready:  func(addr string) { fmt.Fprintf(a.stdout, "admin: http://%s/ (metrics, page reports, explain)\n", addr) },
			}
			if lns.admin != nil {
				return httpserver.Serve(ctx, lns.admin, cfg.Server.HTTP, admin, opts)
			}
			return httpserver.Run(ctx, cfg.Server.Admin.Listen, cfg.Server.HTTP, admin, opts)
		})
	}
	g.Go(func() error { return s.notifier.Run(ctx) })
	if s.relations != nil {
		g.Go(func() error { return s.relations.Run(ctx) })
	}
	if !s.polled { // no crawler's monitoring class checks the watches: they fetch for themselves
		g.Go(func() error {
			return s.watches.Run(ctx, watch.NewUrgencyPlanner(nil), watch.RunOptions{Tick: cfg.Watch.Tick, Budget: cfg.Watch.ChecksPerTick, Fired: s.notifier.Wake})
		})
	}
	g.Go(func() error {
		opts := httpserver.Options{
			Logger:       s.logger,
			TryNextPorts: tryPorts,
			Ready: func(addr string) {
				fmt.Fprintf(a.stdout, "search: http://%s/\n", addr)
				if onListen != nil {
					onListen(addr)
				}
			},
		}
		if lns.search != nil {
			return httpserver.Serve(ctx, lns.search, cfg.Server.HTTP, s.handler, opts)
		}
		return httpserver.Run(ctx, cfg.Server.Listen, cfg.Server.HTTP, s.handler, opts)
	})
}

func (a *app) newRunCmd() *cobra.Command {
	var (
		dataDir string
		seeds   []string
	)
	cmd := &cobra.Command{
		Use:   "run --data DIR --seeds URL... [--resolve HOST=ADDR] [--listen ADDR]",
		Short: "Crawl and serve in one process, the index updated as pages arrive",
		Long: `Run crawls continuously (first fetches, re-fetches chosen by frontier.policy,
discovery re-fetches and polls of the subscribed feeds and watched pages,
within frontier.budget) and serves search over the
same repository; the index follows each committed fetch.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkSeedsGiven(cmd, seeds); err != nil {
				return err
			}
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			return a.runEngine(cmd.Context(), cfg, dataDir, seeds, serviceOptions{}, 0, nil)
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory (repository and index)")
	cmd.Flags().StringSliceVar(&seeds, "seeds", nil, "start URLs (comma-separated or repeated)")
	cmd.Flags().String("listen", "", "address to listen on (server.listen)")
	addFetchFlags(cmd)
	bind(cmd.Flags(), map[string]string{"listen": "server.listen"})
	return cmd
}

// runEngine crawls and serves over dataDir until ctx ends. ready, if set,
// is called with the services and the address once the server listens.
func (a *app) runEngine(ctx context.Context, cfg *configs.Config, dataDir string, seeds []string, opts serviceOptions, tryPorts int, ready func(s *services, addr string)) error {
	logger := a.logger(cfg)
	db, err := openRepo(dataDir, cfg, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	// The crawl is made after the services it reports to; the server,
	// which seeds it, listens only once it is.
	var cr *crawl
	opts.seed = func(ctx context.Context, urls []string) (int, error) { return cr.c.Seed(ctx, cr.f, urls) }
	s, err := openServices(ctx, dataDir, db, cfg, logger, opts)
	if err != nil {
		return err
	}
	defer s.close(context.WithoutCancel(ctx))
	notify := make(chan struct{}, 1)
	onCommit := func() {
		select {
		case notify <- struct{}{}:
		default:
		}
	}
	cr, err = newMonitoredCrawl(ctx, db, cfg, logger, onCommit, s.stakes, s.feeds, s.watches, s.notifier.Wake)
	if err != nil {
		return err
	}
	s.polled = cr.poll != nil
	s.reg.MustRegister(cr.c.Collector())
	if cr.poll != nil {
		s.reg.MustRegister(cr.poll.Collector())
	}
	if len(seeds) > 0 {
		if _, err := cr.c.Seed(ctx, cr.f, seeds); err != nil {
			return err
		}
	} else if cr.f.Drained(time.Duration(1<<62)) && (cr.poll == nil || cr.poll.Stats().URLs == 0) {
		return errors.New("nothing to crawl: the queue is empty and no feed or watch is monitored; give --seeds")
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		sum, err := cr.c.Run(gctx, cr.f, crawler.RunOptions{Progress: a.stderr, ProgressEvery: 10 * time.Second})
		fmt.Fprint(a.stderr, sum)
		return err
	})
	g.Go(func() error { return cr.f.RunPlanner(gctx) })
	if cr.poll != nil {
		g.Go(func() error { return cr.f.RunMonitor(gctx) })
		g.Go(func() error { return cr.poll.Run(gctx) })
	}
	var onListen func(string)
	if ready != nil {
		onListen = func(addr string) { ready(s, addr) }
	}
	a.serveLoops(g, gctx, s, cfg, notify, listeners{}, tryPorts, onListen)
	return ignoreCanceled(g.Wait())
}

func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
