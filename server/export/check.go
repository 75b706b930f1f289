package export

import (
	"slices"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/consensus"
)

// CheckOptions validates the options every format shares: the consensus
// method ("" = majority) and the qrels mode ("" = direct). The error is an
// apperr.Invalid naming the option (consensus, qrels).
func CheckOptions(opt Options) error {
	if !consensus.ValidMethod(opt.Consensus) {
		return apperr.Invalidf("consensus", "must be majority or dawid-skene, not %q", apperr.Clip(opt.Consensus, 40))
	}
	if !ValidQrels(opt.Qrels) {
		return apperr.Invalidf("qrels", "must be direct, derived or both, not %q", apperr.Clip(opt.Qrels, 40))
	}
	return nil
}

// Check validates a format and its options before anything is written
// (boolpool export, and the HTTP download through CheckDownload): the
// format is one of Formats, trec-run names its run, and CheckOptions.
func Check(format string, opt Options) error {
	if !slices.Contains(Formats(), format) {
		return apperr.Invalidf("format", "must be one of %s", strings.Join(Formats(), ", "))
	}
	if format == "trec-run" && opt.Run == "" {
		return apperr.Invalidf("run", "trec-run needs the name of a run")
	}
	return CheckOptions(opt)
}

// CheckDownload is Check for the formats a browser downloads as one file,
// and returns the file's extension (beir: a zip).
func CheckDownload(format string, opt Options) (ext string, err error) {
	ext, ok := downloadExt(format)
	if !ok {
		var offered []string
		for _, f := range Formats() {
			if _, ok := downloadExt(f); ok {
				offered = append(offered, f)
			}
		}
		return "", apperr.Invalidf("format", "must be one of %s (beir as a zip)", strings.Join(offered, ", "))
	}
	return ext, Check(format, opt)
}

// downloadExt is the file extension of a format offered for download.
func downloadExt(format string) (string, bool) {
	switch format {
	case "quest", "quest-documents", "quest-judged":
		return "jsonl", true
	case "trec-topics":
		return "txt", true
	case "trec-qrels", "qrels-consensus":
		return "qrels", true
	case "trec-run":
		return "run", true
	case "csv":
		return "csv", true
	case "idmap":
		return "tsv", true
	case "beir":
		return "zip", true
	}
	return "", false
}
