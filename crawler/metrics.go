package crawler

import "github.com/prometheus/client_golang/prometheus"

// Collector exposes the crawl counters to Prometheus; register it with the
// registry the HTTP server serves on /metrics.
func (c *Crawler) Collector() prometheus.Collector { return counterCollector{c} }

var (
	fetchesDesc = prometheus.NewDesc("deltaq_crawl_fetches_total",
		"Page fetches committed, by outcome.", []string{"outcome"}, nil)
	classDesc = prometheus.NewDesc("deltaq_crawl_budget_fetches_total",
		"Page fetches committed, by the budget class they were spent from.", []string{"class"}, nil)
	requestsDesc = prometheus.NewDesc("deltaq_crawl_requests_total",
		"HTTP requests sent, by kind.", []string{"kind"}, nil)
	pagesDesc = prometheus.NewDesc("deltaq_crawl_pages_total",
		"Successful fetches by what they found: new, changed or unchanged.", []string{"result"}, nil)
	admittedDesc = prometheus.NewDesc("deltaq_crawl_urls_admitted_total",
		"URLs newly recorded and queued.", nil, nil)
	limitedDesc = prometheus.NewDesc("deltaq_crawl_urls_limited_total",
		"URLs dropped by depth, length, per-host or redirect limits.", nil, nil)
)

type counterCollector struct{ c *Crawler }

func (counterCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{fetchesDesc, classDesc, requestsDesc, pagesDesc, admittedDesc, limitedDesc} {
		ch <- d
	}
}

func (k counterCollector) Collect(ch chan<- prometheus.Metric) {
	s := k.c.counters.Snapshot()
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	for o, v := range s.Outcomes {
		counter(fetchesDesc, v, o)
	}
	for cl, v := range s.ByClass {
		counter(classDesc, v, cl)
	}
	counter(requestsDesc, s.Requests, "page")
	counter(requestsDesc, s.Robots, "robots")
	counter(pagesDesc, s.New, "new")
	counter(pagesDesc, s.Changed, "changed")
	counter(pagesDesc, s.Unchanged, "unchanged")
	counter(admittedDesc, s.Admitted)
	counter(limitedDesc, s.Limited)
}
