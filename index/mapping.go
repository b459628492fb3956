package index

import (
	"errors"
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/token/unicodenorm"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// This file is the only place that names the index's fields and its
// analyzer. Everything else refers to these constants.
const (
	// FieldURL is the page URL (also the document id), a keyword.
	FieldURL = "url"
	// FieldHost is host[:port] of the URL, a keyword; site: filters on it.
	FieldHost = "host"
	// FieldTitle is the page title, stored for display and searched with
	// titleAnalyzerName, which keeps stop words: the searcher weighs title
	// words (match.go) and answers stop-word queries from it. FieldText
	// holds the title too, for S(p, q).
	FieldTitle = "title"
	// FieldText is title + "\n\n" + main text: the one searchable field,
	// the field every score S(p, q) is computed on (§4.2.1).
	FieldText = "text"
	// FieldFetched is the fetch time of the indexed version.
	FieldFetched = "fetched"
	// FieldPopularity is the page's popularity, filled by ranking.
	FieldPopularity = "popularity"

	// AnalyzerName is the analyzer of FieldText: Bleve's English analyzer
	// (unicode tokenizer, possessive filter, lower case, English stop
	// words, Porter stemmer) after NFKC normalization, so that a word in
	// compatibility characters (full-width ＦＥＥＳ, the ligature in
	// ﬁling) is the word in plain letters, on a page and in a query. The
	// workload is split with it too (§4.6.1).
	AnalyzerName = "deltaq_en"
)

// nfkcFilterName is the token filter that normalizes a word to NFKC.
const nfkcFilterName = "deltaq_nfkc"

// Scoring names a Bleve scoring model (index.scoring).
type Scoring string

const (
	// ScoringBM25 is Bleve's BM25 (k1 = 1.2, b = 0.75).
	ScoringBM25 Scoring = bindex.BM25Scoring
	// ScoringTFIDF is Bleve's default TF-IDF (Lucene's classic variant).
	ScoringTFIDF Scoring = bindex.TFIDFScoring
)

// NewMapping returns the index mapping for a scoring model: one static
// document mapping with the fields above, no dynamic fields and no _all
// composite field. Bleve validates it and stores it inside the index, so a
// reopened index keeps the analyzer and the scoring model it was built with.
func NewMapping(s Scoring) (*mapping.IndexMappingImpl, error) {
	if s != ScoringBM25 && s != ScoringTFIDF {
		return nil, fmt.Errorf("index: scoring model %q: want %q or %q", s, ScoringBM25, ScoringTFIDF)
	}
	keywordField := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	title := bleve.NewTextFieldMapping()
	title.Analyzer = titleAnalyzerName
	title.Store = true
	title.IncludeInAll = false
	title.IncludeTermVectors = true // positions: a phrase of stop words is matched in titles (match.go)
	title.DocValues = false

	text := bleve.NewTextFieldMapping()
	text.Analyzer = AnalyzerName
	text.Store = true              // snippets are cut from the stored text
	text.IncludeTermVectors = true // match positions for snippets
	text.IncludeInAll = false
	text.DocValues = false

	fetched := bleve.NewDateTimeFieldMapping()
	fetched.IncludeInAll = false

	popularity := bleve.NewNumericFieldMapping()
	popularity.IncludeInAll = false

	dm := bleve.NewDocumentStaticMapping()
	url := keywordField()
	url.DocValues = true // the searcher resolves candidates' URLs without reading stored documents (match.go)
	dm.AddFieldMappingsAt(FieldURL, url)
	dm.AddFieldMappingsAt(FieldHost, keywordField())
	dm.AddFieldMappingsAt(FieldTitle, title)
	dm.AddFieldMappingsAt(FieldText, text)
	dm.AddFieldMappingsAt(FieldFetched, fetched)
	dm.AddFieldMappingsAt(FieldPopularity, popularity)
	dm.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())

	im := bleve.NewIndexMapping()
	err := errors.Join(
		im.AddCustomTokenFilter(nfkcFilterName, map[string]any{"type": unicodenorm.Name, "form": unicodenorm.NFKC}),
		im.AddCustomAnalyzer(AnalyzerName, map[string]any{
			"type":          custom.Name,
			"tokenizer":     unicode.Name,
			"token_filters": []string{nfkcFilterName, en.PossessiveName, lowercase.Name, en.StopName, porter.Name},
		}),
		im.AddCustomAnalyzer(titleAnalyzerName, map[string]any{
			"type":          custom.Name,
			"tokenizer":     unicode.Name,
			"token_filters": []string{nfkcFilterName, en.PossessiveName, lowercase.Name, porter.Name},
		}))
	if err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	im.DefaultMapping = dm
	im.DefaultAnalyzer = AnalyzerName
	im.DefaultField = FieldText
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false
	im.ScoringModel = string(s)
	if err := im.Validate(); err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	return im, nil
}

// titlePositions says whether m keeps the positions of FieldTitle's
// words, which phrases of stop words are matched with.
func titlePositions(m mapping.IndexMapping) bool {
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok || im.DefaultMapping == nil {
		return false
	}
	dm := im.DefaultMapping.Properties[FieldTitle]
	return dm != nil && len(dm.Fields) > 0 && dm.Fields[0].IncludeTermVectors
}

// scoringOf returns the scoring model stored in a mapping.
func scoringOf(m mapping.IndexMapping) Scoring {
	if im, ok := m.(*mapping.IndexMappingImpl); ok && im.ScoringModel == string(ScoringBM25) {
		return ScoringBM25
	}
	return ScoringTFIDF // Bleve's default when the model is empty
}

// pageDoc is what one page contributes to the index.
type pageDoc struct {
	URL        string
	Title      string
	Text       string // extracted main text, without the title
	Fetched    time.Time
	Popularity float64
}

// IndexedText is the content of FieldText for a page: what the index
// analyses, and what an evaluation must analyse to score a page as the
// index does.
func IndexedText(title, text string) string {
	if title == "" {
		return text
	}
	return title + titleBreak + text
}

// titleBreak separates the title from the main text in IndexedText.
const titleBreak = "\n\n"

// mainText undoes IndexedText: the main text of a page whose FieldText
// is field.
func mainText(title, field string) string {
	return field[mainTextStart(field, title):]
}

// newDocument maps a page to a Bleve document through the mapping, so the
// mapping stays the one description of every field's options. The returned
// document is passed to Batch.IndexAdvanced; after Index.Batch it carries
// Bleve's own analysis of FieldText (AnalyzedLength and
// AnalyzedTokenFrequencies), which the ΔQ measurement reuses.
func newDocument(m mapping.IndexMapping, p *pageDoc) (*document.Document, error) {
	doc := document.NewDocument(p.URL)
	data := map[string]any{
		FieldURL:        p.URL,
		FieldHost:       urlnorm.Host(p.URL),
		FieldTitle:      p.Title,
		FieldText:       IndexedText(p.Title, p.Text),
		FieldFetched:    p.Fetched,
		FieldPopularity: p.Popularity,
	}
	if err := m.MapDocument(doc, data); err != nil {
		return nil, fmt.Errorf("index: map %s: %w", p.URL, err)
	}
	return doc, nil
}

// analyzedText returns the analysis Bleve made of FieldText for a document
// that went through Index.Batch: the field length and the term
// frequencies. ok is false if the document has no analyzed text field.
func analyzedText(doc *document.Document) (length int, freqs bindex.TokenFrequencies, ok bool) {
	for _, f := range doc.Fields {
		if f.Name() == FieldText {
			return f.AnalyzedLength(), f.AnalyzedTokenFrequencies(), f.AnalyzedTokenFrequencies() != nil
		}
	}
	return 0, nil, false
}
