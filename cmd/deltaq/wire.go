package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/monitor/poll"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// Data directory layout: the repository and the index side by side.
const (
	repoDir  = "repo"
	indexDir = "index"
)

// indexPath is the index directory under the data directory.
func indexPath(dataDir string) string { return filepath.Join(dataDir, indexDir) }

// inData reports whether path is the data directory dataDir or lies in
// it, however either is named: both are compared absolute, with symbolic
// links resolved, a path still to be made by its deepest part that
// exists. A data directory that does not exist holds nothing.
func inData(dataDir, path string) bool {
	data, err := realPath(dataDir)
	if dataDir == "" || err != nil {
		return false
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		rest, p = filepath.Join(filepath.Base(p), rest), parent
	}
	rel, err := filepath.Rel(data, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// realPath is p made absolute with its symbolic links resolved, so that
// two names of one place compare equal.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// errNoData is the error of a command given no --data.
var errNoData = errors.New("--data: a data directory is required")

// dataDirProblem is what makes dataDir no data directory, before anything
// is made or read there: none given, or a symbolic link loop, at dataDir
// or at the repository or index in it, which the commands that make one
// would report as "mkdir: file exists" and those that read one as a
// repository they cannot inspect.
func dataDirProblem(dataDir string) error {
	if dataDir == "" {
		return errNoData
	}
	if isLinkLoop(dataDir) {
		return fmt.Errorf("--data %s: is a symbolic link loop: point the link at a directory, or give --data another path", dataDir)
	}
	for _, sub := range []string{repoDir, indexDir} {
		if p := filepath.Join(dataDir, sub); isLinkLoop(p) {
			return fmt.Errorf("--data %s: %s is a symbolic link loop: point the link at a directory, or remove it", dataDir, p)
		}
	}
	return nil
}

// isLinkLoop reports whether path is a symbolic link that never reaches a
// file.
func isLinkLoop(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, syscall.ELOOP)
}

// repoOpener opens the repository under a data directory: openRepo or
// openCrawledRepo.
type repoOpener = func(dataDir string, cfg *configs.Config, logger *slog.Logger) (*repo.DB, error)

// openRepo opens (creating) the repository under the data directory.
func openRepo(dataDir string, cfg *configs.Config, logger *slog.Logger) (*repo.DB, error) {
	if err := dataDirProblem(dataDir); err != nil {
		return nil, err
	}
	// A repository directory given as --data would get a second database
	// made inside the first.
	if st, err := repo.Inspect(dataDir); err == nil && st == repo.DirComplete {
		return nil, fmt.Errorf("--data %s: is a repository itself; give the data directory that holds it (%s)", dataDir, filepath.Dir(filepath.Clean(dataDir)))
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("--data %s: %w", dataDir, err)
	}
	switch st, err := repoStateOf(dataDir); {
	case err != nil:
		return nil, err
	case st == repo.DirPartial:
		// Pebble would make a new, empty database among these files.
		return nil, errRepoPartial(dataDir)
	}
	return repo.Open(filepath.Join(dataDir, repoDir), cfg.Repo, repo.Options{Logger: logger})
}

// openCrawledRepo opens the repository under the data directory, for the
// commands that read one, which must be there: a mistyped --data would
// otherwise be created empty and read as a repository with nothing in it.
func openCrawledRepo(dataDir string, cfg *configs.Config, logger *slog.Logger) (*repo.DB, error) {
	if err := dataDirProblem(dataDir); err != nil {
		return nil, err
	}
	switch st, err := repoStateOf(dataDir); {
	case err != nil:
		return nil, err
	case st == repo.DirAbsent:
		return nil, fmt.Errorf("--data %s: no repository there (deltaq crawl or deltaq run makes one)", dataDir)
	case st != repo.DirComplete:
		return nil, errRepoPartial(dataDir)
	}
	return openRepo(dataDir, cfg, logger)
}

// repoStateOf is what the repository directory under dataDir holds.
func repoStateOf(dataDir string) (repo.DirState, error) {
	st, err := repo.Inspect(filepath.Join(dataDir, repoDir))
	if err != nil {
		return 0, fmt.Errorf("--data %s: %w", dataDir, err)
	}
	return st, nil
}

// errRepoPartial is the error of a data directory whose repository
// directory holds no complete database.
func errRepoPartial(dataDir string) error {
	dir := filepath.Join(dataDir, repoDir)
	return fmt.Errorf("--data %s: %s is not a complete repository (it has no Pebble MANIFEST; a backup or copy cut short leaves such a directory): use a complete backup, or remove %s to start a new repository", dataDir, dir, dir)
}

// openIndex opens the index under the data directory. A damaged index
// stops the command with the way out: the index is derived from the
// repository, and index rebuild makes it again whatever state it is in.
func openIndex(dataDir string, cfg *configs.Config, db *repo.DB, opts index.Options) (*index.Index, error) {
	ix, err := index.Open(indexPath(dataDir), cfg.Index, db, opts)
	if errors.Is(err, index.ErrDamaged) {
		return nil, fmt.Errorf("%w\nthe index is derived from the repository: rebuild it with deltaq index rebuild --data %s", err, dataDir)
	}
	return ix, err
}

// crawl is a crawler, its frontier and its discovery statistics over one
// repository, and, in a monitored crawl, the poller of its monitoring class.
type crawl struct {
	c         *crawler.Crawler
	f         *frontier.Frontier
	discovery *discovery.Stats
	poll      *poll.Poller // nil: no monitoring class
}

// newCrawl wires a crawl. importance is the pages' stake in the query
// workload for the re-fetch policy (index.StakeFunc where the index runs
// beside the crawl); nil weighs every page 1.
func newCrawl(ctx context.Context, db *repo.DB, cfg *configs.Config, logger *slog.Logger, onCommit func(), importance frontier.Importance) (*crawl, error) {
	return newCrawlWith(ctx, db, cfg, logger, onCommit, importance, crawlParts{})
}

// newNodeCrawl is newCrawl for a node of a cluster: m routes each host to
// its shard's node.
func newNodeCrawl(ctx context.Context, db *repo.DB, cfg *configs.Config, logger *slog.Logger, m *cluster.Member) (*crawl, error) {
	return newCrawlWith(ctx, db, cfg, logger, nil, nil, crawlParts{member: m})
}

// feedPlanSeed seeds the feeds' plan (feeds.PlanAll's clustering) in the
// poller and in `deltaq feeds explain` alike, so explain shows the poller's
// plan.
const feedPlanSeed = 1

// newMonitoredCrawl is newCrawl whose frontier spends frontier.split.monitor
// on polling the feeds of st and the watches of engine (package
// monitor/poll); fired wakes the notifier. With a zero share it is newCrawl.
// st is the process's one feed store: its lock orders a poll's record
// against an edit of the same feed.
func newMonitoredCrawl(ctx context.Context, db *repo.DB, cfg *configs.Config, logger *slog.Logger, onCommit func(), importance frontier.Importance, st *feeds.Store, engine *watch.Engine, fired func()) (*crawl, error) {
	if cfg.Frontier.Split.Monitor == 0 {
		return newCrawl(ctx, db, cfg, logger, onCommit, importance)
	}
	p, err := poll.New(ctx, db, cfg.Monitor, poll.Options{Feeds: st, FeedsConfig: cfg.Feeds, Watches: engine, Logger: logger, Fired: fired, Seed: feedPlanSeed})
	if err != nil {
		return nil, err
	}
	p.LimitRedirects(cfg.Crawler.Limits.MaxRedirects) // a watched page's, as a feed's (openFeedStore)
	return newCrawlWith(ctx, db, cfg, logger, onCommit, importance, crawlParts{poll: p})
}

// crawlParts are what some crawls add to newCrawl's wiring.
type crawlParts struct {
	poll   *poll.Poller          // polls of the monitoring class; nil: none
	member *cluster.Member       // routes hosts to the nodes of a cluster; nil: a single machine
	only   func(url string) bool // the queued URLs the crawl may fetch (frontier.Options.Only); nil: all
	dueNow bool                  // fetch them now, whenever they were planned for (frontier.Options.DueNow)
	feed   func(url string) bool // the subscribed feeds' URLs, fetched as a feed reader does (frontier.Options.Feed); nil: the poller's
}

// newCrawlWith wires a crawl with parts.
func newCrawlWith(ctx context.Context, db *repo.DB, cfg *configs.Config, logger *slog.Logger, onCommit func(), importance frontier.Importance, parts crawlParts) (*crawl, error) {
	stats, err := discovery.Load(ctx, db, cfg.Discovery, cfg.Frontier.Budget.Period, logger)
	if err != nil {
		return nil, err
	}
	onYield := func(x string, y repo.DiscoveryYield) {
		if err := stats.Record(x, y); err != nil {
			logger.Warn("discovery statistics", "url", x, "err", err)
		}
	}
	copts := crawler.Options{}
	if parts.member != nil {
		copts = parts.member.CrawlerOptions()
	}
	copts.Logger, copts.OnCommit, copts.OnYield = logger, onCommit, onYield
	// The crawler offers the links of a feed's first feeds.max_items items
	// alone, and none of a feed over feeds.max_bytes: those the feed
	// aggregator reads.
	ccfg := cfg.Crawler
	ccfg.Sitemap.FeedItems, ccfg.Sitemap.FeedBytes = cfg.Feeds.MaxItems, cfg.Feeds.MaxBytes
	c, err := crawler.New(ccfg, db, copts)
	if err != nil {
		return nil, err
	}
	policy, err := frontier.NewPolicy(cfg.Frontier.Policy, cfg.Frontier, importance)
	if err != nil {
		return nil, err
	}
	opts := frontier.Options{Logger: logger, Discoverer: stats, Only: parts.only, DueNow: parts.dueNow, Feed: parts.feed}
	if parts.poll != nil {
		opts.Monitor, opts.MonitorInstant = parts.poll, cfg.Monitor.Instant
	}
	if parts.member != nil {
		// A share of the cluster's budget.
		if opts.Quota, err = parts.member.Budget(ctx, cfg.Frontier); err != nil {
			return nil, err
		}
	}
	f, err := frontier.New(ctx, db, cfg.Frontier, c.Gate(), policy, opts)
	if err != nil {
		return nil, err
	}
	return &crawl{c: c, f: f, discovery: stats, poll: parts.poll}, nil
}
