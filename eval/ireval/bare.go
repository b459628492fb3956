package ireval

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/deltaq/deltaq/eval/trec"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/repo"
)

// Bare is the bare-Bleve baseline the searcher is compared with, as the
// evaluation data's README describes its anchor: a plain on-disk Bleve
// index (scorch, Bleve's BM25, English analyzer) with one document per
// indexable page of the repository, title and text in one field, every
// page in one batch; a topic is a match query with its words ORed, top
// depth, ties by URL descending as trec_eval orders them.
type Bare struct {
	bi bleve.Index
}

// bareField is the bare index's one searched field.
const bareField = "text"

// NewBare indexes the repository's indexable pages (their latest version)
// into a new Bleve index in dir.
func NewBare(ctx context.Context, dir string, db *repo.DB) (*Bare, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = string(index.ScoringBM25)
	m.DefaultAnalyzer = en.AnalyzerName
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = false
	text.IncludeTermVectors = false
	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(bareField, text)
	m.DefaultMapping = doc
	bi, err := bleve.New(dir, m)
	if err != nil {
		return nil, fmt.Errorf("ireval: bare index: %w", err)
	}
	batch := bi.NewBatch()
	for p, err := range db.Pages(ctx) {
		if err != nil {
			bi.Close()
			return nil, err
		}
		if !p.Indexable() {
			continue
		}
		v, err := db.LatestVersion(ctx, p.URL)
		if err != nil {
			bi.Close()
			return nil, fmt.Errorf("ireval: bare index: %s: %w", p.URL, err)
		}
		if err := batch.Index(p.URL, map[string]any{bareField: index.IndexedText(v.Title, v.Text)}); err != nil {
			bi.Close()
			return nil, fmt.Errorf("ireval: bare index: %s: %w", p.URL, err)
		}
	}
	if err := bi.Batch(batch); err != nil {
		bi.Close()
		return nil, fmt.Errorf("ireval: bare index: %w", err)
	}
	return &Bare{bi: bi}, nil
}

// Search returns the top depth pages for q.
func (b *Bare) Search(ctx context.Context, q string, depth int) ([]trec.Hit, error) {
	mq := query.NewMatchQuery(q)
	mq.SetField(bareField)
	res, err := b.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(mq, depth, 0, false))
	if err != nil {
		return nil, fmt.Errorf("ireval: bare search %q: %w", q, err)
	}
	hits := make([]trec.Hit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = trec.Hit{Doc: h.ID, Score: h.Score}
	}
	return hits, nil
}

// Close closes the bare index.
func (b *Bare) Close() error { return b.bi.Close() }
