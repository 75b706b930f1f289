package lexical

// MatchSortedAppend is MatchAppend with the hits in ascending document
// order, appended to dst. It merges the terms' posting lists document by
// document, so it reads each list once, in order, and writes no
// collection-sized array: MatchAppend adds each posting into a score array
// as long as the collection, at a random place per posting, which at MS
// MARCO size (8.8M documents, a 70 MB array) made most postings a cache
// miss. Each document's score is summed in v's term order, as MatchAppend
// sums it, so the two give the same floats.
func (ix *Index) MatchSortedAppend(dst []Hit, v Vec) []Hit {
	var posBuf [16]int
	var pos []int
	if len(v) <= len(posBuf) {
		pos = posBuf[:len(v)]
	} else {
		pos = make([]int, len(v))
	}
	for {
		// The next document is the least one under a cursor.
		next, found := uint32(0), false
		for t, tw := range v {
			docs := ix.docs[tw.Term]
			if p := pos[t]; p < len(docs) && (!found || docs[p] < next) {
				next, found = docs[p], true
			}
		}
		if !found {
			return dst
		}
		var s float64
		matched := false
		for t, tw := range v {
			docs := ix.docs[tw.Term]
			if p := pos[t]; p < len(docs) && docs[p] == next {
				s += tw.Weight * ix.docWeight(ix.tfs[tw.Term][p], next)
				if tw.Weight > 0 {
					matched = true
				}
				pos[t] = p + 1
			}
		}
		if matched {
			dst = append(dst, Hit{Doc: next, Score: s})
		}
	}
}
