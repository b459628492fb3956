package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/alert"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/relation"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
	"github.com/deltaq/deltaq/web"
)

// services are the parts of a search engine over one data directory: the
// repository, the index that follows it, ranking, ads and the HTTP handler.
type services struct {
	cfg     *configs.Config
	logger  *slog.Logger
	db      *repo.DB
	ix      *index.Index
	stakes  frontier.Importance // pages' stakes from ix, for re-fetch plans and their explanations
	rank    *ranking.Store
	ads     *ads.Store
	reg     *prometheus.Registry
	handler *web.Server
	// Watches, search alerts and their delivery (WebCQ; packages watch,
	// alert and notify).
	watches  *watch.Engine
	alerts   *alert.Matcher
	feeds    *feeds.Store
	outbox   *notify.Outbox
	notifier *notify.Service
	// polled says a crawler's monitoring class checks the watches
	// (monitor/poll), so the watches' own check loop does not run.
	polled bool
	// relations syncs the user's relations on schedule; nil when
	// relation.sync_every is 0.
	relations *relation.Keeper
}

// serviceOptions vary what openServices builds.
type serviceOptions struct {
	workload []querylog.Query // overrides index.workload_log (the demo's own queries)
	// backend, if set, gives the search engine's backend over the index
	// (a cluster's nodes, `deltaq serve --cluster`).
	backend func(ix *index.Index) (web.Backend, error)
	// seed admits seeds into the crawl this process runs (deltaq run);
	// nil for a process that only serves.
	seed web.SeedFunc
}

// openServices opens everything over an already open repository.
func openServices(ctx context.Context, dataDir string, db *repo.DB, cfg *configs.Config, logger *slog.Logger, opts serviceOptions) (_ *services, err error) {
	s := &services{cfg: cfg, logger: logger, db: db, reg: prometheus.NewRegistry()}
	if s.rank, err = ranking.NewStore(db, cfg.Ranking, ranking.StoreOptions{Logger: logger}); err != nil {
		return nil, err
	}
	workload, err := loadWorkload(cfg, opts.workload)
	if err != nil {
		return nil, err
	}
	s.outbox = notify.NewOutbox(db, cfg.Notify)
	if s.alerts, err = openAlerts(ctx, db, cfg, s.outbox, logger); err != nil {
		return nil, err
	}
	if s.ix, err = openIndex(dataDir, cfg, db, index.Options{
		Logger: logger, Workload: workload, Popularity: s.rank.Popularity, Observer: s.alerts,
	}); err != nil {
		return nil, err
	}
	// From here on, a failure closes what is open.
	defer func() {
		if err != nil {
			s.close(ctx)
		}
	}()
	s.stakes = s.ix.StakeFunc(logger)
	if s.ads, err = ads.Open(ctx, db, cfg.Ads, ads.Options{Logger: logger}); err != nil {
		return nil, err
	}
	secret, err := s.rank.Secret(ctx, cfg.Ranking.Secret)
	if err != nil {
		return nil, err
	}
	if s.watches, err = openWatches(db, cfg, s.outbox, logger); err != nil {
		return nil, err
	}
	// Webhook URLs come from users: they go through the crawler's dialer too.
	dial, err := crawler.DialContext(cfg.Crawler)
	if err != nil {
		return nil, err
	}
	s.notifier = notify.NewService(s.outbox, notify.Options{Logger: logger, Client: &http.Client{Transport: &http.Transport{DialContext: dial}}})
	if s.feeds, err = openFeedStore(ctx, db, cfg); err != nil {
		return nil, err
	}
	if s.handler, err = s.newHandler(dataDir, secret, opts); err != nil {
		return nil, err
	}
	s.reg.MustRegister(s.feeds.Collector(), s.ix.Collector())
	s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "deltaq_index_lag", Help: "Change-feed entries the index has yet to apply."},
			func() float64 { return float64(s.ix.Lag()) }))
	return s, nil
}

// loadWorkload returns the queries the index measures ΔQ over: given,
// as the demo gives its own, else index.workload_log's, else none.
func loadWorkload(cfg *configs.Config, given []querylog.Query) ([]querylog.Query, error) {
	if given != nil || cfg.Index.WorkloadLog == "" {
		return given, nil
	}
	format, err := querylog.ParseFormat(cfg.Index.WorkloadFormat)
	if err != nil {
		return nil, err
	}
	workload, err := querylog.Load(cfg.Index.WorkloadLog, format)
	if err != nil {
		return nil, fmt.Errorf("index.workload_log: %w", err)
	}
	return workload, nil
}

// newHandler builds the searcher over the open services and the HTTP
// handler that serves it with the rest: pages, ads, feeds, watches,
// alerts, relations and backups. secret signs the result links.
func (s *services) newHandler(dataDir string, secret []byte, opts serviceOptions) (*web.Server, error) {
	cfg := s.cfg
	limits := cfg.Index.Limits()
	var backend web.Backend
	if opts.backend != nil {
		var err error
		if backend, err = opts.backend(s.ix); err != nil {
			return nil, err
		}
	}
	searcher, err := ranking.NewSearcher(cfg.Ranking, web.Retriever{Index: s.ix, Limits: limits}, s.rank, secret, s.logger)
	if err != nil {
		return nil, err
	}
	signer, err := ranking.NewSigner(secret)
	if err != nil {
		return nil, err
	}
	relations := relation.NewStore(s.db)
	if cfg.Relation.SyncEvery > 0 {
		s.relations = &relation.Keeper{Store: relations, Every: cfg.Relation.SyncEvery, Sync: cfg.Relation.SyncOptions(false), Logger: s.logger,
			Client: func(def relation.Definition) (*relation.Client, error) { return relationClient(cfg, def, s.logger) }}
	}
	return web.New(cfg.Server, web.Deps{
		Search:   web.NewEngine(s.ix, searcher, s.ads, web.EngineOptions{Limits: limits, Backend: backend}),
		Pages:    s.db,
		Explain:  s.explain,
		Registry: s.reg,
		Logger:   s.logger,
		Signer:   signer,
		Clicks:   s.rank,
		Ads:      s.ads,

		Relations:      relations,
		RelationConfig: cfg.Relation,
		Feeds:          s.feeds,
		Watches:        s.watches,
		Alerts:         s.alerts,
		Outbox:         s.outbox,
		Backup:         func(ctx context.Context, dir string) error { return backupData(ctx, s.ix, dataDir, dir) },
		Seed:           opts.seed,
	})
}

// explain is the page report's recrawl section: the page's δQ_A estimate,
// its priority now (thesis §4.7.1) and, under deltaq, the posteriors the
// policy ranks it by.
func (s *services) explain(ctx context.Context, url string) (frontier.Explanation, error) {
	return frontier.ExplainPage(ctx, s.db, s.cfg.Frontier, url, time.Now(), s.stakes)
}

// openAlerts loads the standing search queries, analyzed as the index
// analyzes text.
func openAlerts(ctx context.Context, db *repo.DB, cfg *configs.Config, ob *notify.Outbox, logger *slog.Logger) (*alert.Matcher, error) {
	m, err := index.NewMapping(cfg.Index.Scoring)
	if err != nil {
		return nil, err
	}
	return alert.New(ctx, db, cfg.Alert, m.AnalyzerNamed(index.AnalyzerName), cfg.Index.Limits(), ob, alert.Options{Logger: logger})
}

// openWatches opens the sentinel engine; it fetches through the crawler's
// dialer, so watched URLs obey crawler.resolve and crawler.allow_private.
func openWatches(db *repo.DB, cfg *configs.Config, ob *notify.Outbox, logger *slog.Logger) (*watch.Engine, error) {
	dial, err := crawler.DialContext(cfg.Crawler)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: cfg.Watch.FetchTimeout, Transport: &http.Transport{DialContext: dial}}
	return watch.New(db, cfg.Watch, ob, watch.Options{Logger: logger, Fetcher: watch.HTTPFetcher{Client: client, MaxBytes: cfg.Watch.MaxBodyBytes, MaxRedirects: cfg.Crawler.Limits.MaxRedirects}})
}

func (s *services) close(ctx context.Context) {
	if s.watches != nil {
		if err := s.watches.Close(); err != nil {
			s.logger.Error("watch: close", "err", err)
		}
	}
	if s.ads != nil {
		if err := s.ads.Close(ctx); err != nil {
			s.logger.Error("ads: close", "err", err)
		}
	}
	if s.ix != nil {
		if err := s.ix.Close(); err != nil {
			s.logger.Error("index: close", "err", err)
		}
	}
}
