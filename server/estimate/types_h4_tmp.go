// Package estimate: TEMPORARY copy of the type declarations H3 writes on
// branch h-estimate, so that h-sample compiles before it lands. Delete this
// file when h-estimate is merged.
package estimate

type Stratum struct {
	Name       string `json:"name"`
	Population int    `json:"population"`
	Sampled    int    `json:"sampled"`
}

type Unit struct {
	Doc     string  `json:"doc"`
	Stratum int     `json:"stratum"`
	Pi      float64 `json:"pi"`
}

type QueryDesign struct {
	Query  string    `json:"query"`
	Strata []Stratum `json:"strata"`
	Units  []Unit    `json:"units"`
}

type RankStratum struct {
	From int     `json:"from"`
	To   int     `json:"to"`
	Rate float64 `json:"rate"`
}

type CorpusStratum struct {
	Bounds   []int     `json:"bounds"`
	Rates    []float64 `json:"rates"`
	Rest     bool      `json:"rest"`
	RestRate float64   `json:"rest_rate"`
}

type SampleConfig struct {
	Strata []RankStratum  `json:"strata"`
	Corpus *CorpusStratum `json:"corpus,omitempty"`
	Seed   uint64         `json:"seed"`
}

type QueryInput struct {
	Query  string
	Lists  [][]string
	Proxy  []string
	Corpus []string
	Judged map[string]bool
}
