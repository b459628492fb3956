package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/crawler/repo"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
)

// Data directory layout: the repository and the index side by side.
const (
	repoDir  = "repo"
	indexDir = "index"
)

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

// crawl is a crawler and its frontier over one repository.
type crawl struct {
	c *crawler.Crawler
	f *frontier.Frontier
}

func newCrawl(ctx context.Context, db *repo.DB, cfg *configs.Config, clk clock.Clock, logger *slog.Logger, onCommit func()) (*crawl, error) {
	c, err := crawler.New(cfg.Crawler, db, crawler.Options{Clock: clk, Logger: logger, OnCommit: onCommit})
	if err != nil {
		return nil, err
	}
	policy, err := frontier.NewPolicy(cfg.Frontier.Policy, cfg.Frontier, nil)
	if err != nil {
		return nil, err
	}
	f, err := frontier.New(ctx, db, cfg.Frontier, c.Gate(), policy, frontier.Options{Clock: clk, Logger: logger})
	if err != nil {
		return nil, err
	}
	return &crawl{c: c, f: f}, nil
}
