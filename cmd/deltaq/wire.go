package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// Data directory layout: the repository and the index side by side.
const (
	repoDir  = "repo"
	indexDir = "index"
)

// indexPath is the index directory under the data directory.
func indexPath(dataDir string) string { return filepath.Join(dataDir, indexDir) }

// openRepo opens (creating) the repository under the data directory.
func openRepo(dataDir string, cfg *configs.Config, logger *slog.Logger) (*repo.DB, error) {
	if dataDir == "" {
		return nil, fmt.Errorf("--data: a data directory is required")
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("--data %s: %w", dataDir, err)
	}
	return repo.Open(filepath.Join(dataDir, repoDir), cfg.Repo, repo.Options{Logger: logger})
}

// crawl is a crawler, its frontier and its discovery statistics over one
// repository.
type crawl struct {
	c         *crawler.Crawler
	f         *frontier.Frontier
	discovery *discovery.Stats
}

// newCrawl wires a crawl. importance is the pages' stake in the query
// workload for the re-fetch policy (index.StakeFunc where the index runs
// beside the crawl); nil weighs every page 1.
func newCrawl(ctx context.Context, db *repo.DB, cfg *configs.Config, logger *slog.Logger, onCommit func(), importance frontier.Importance) (*crawl, error) {
	stats, err := discovery.Load(ctx, db, cfg.Discovery, cfg.Frontier.Budget.Period, logger)
	if err != nil {
		return nil, err
	}
	onYield := func(x string, y repo.DiscoveryYield) {
		if err := stats.Record(x, y); err != nil {
			logger.Warn("discovery statistics", "url", x, "err", err)
		}
	}
	c, err := crawler.New(cfg.Crawler, db, crawler.Options{Logger: logger, OnCommit: onCommit, OnYield: onYield})
	if err != nil {
		return nil, err
	}
	policy, err := frontier.NewPolicy(cfg.Frontier.Policy, cfg.Frontier, importance)
	if err != nil {
		return nil, err
	}
	f, err := frontier.New(ctx, db, cfg.Frontier, c.Gate(), policy, frontier.Options{Logger: logger, Discoverer: stats})
	if err != nil {
		return nil, err
	}
	return &crawl{c: c, f: f, discovery: stats}, nil
}
