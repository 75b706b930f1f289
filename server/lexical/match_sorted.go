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
	switch len(v) {
	case 0:
		return dst
	case 1:
		if v[0].Weight <= 0 {
			return dst // no positive term: nothing matches
		}
		w, docs, tfs := v[0].Weight, ix.docs[v[0].Term], ix.tfs[v[0].Term]
		for i, d := range docs {
			dst = append(dst, Hit{Doc: d, Score: w * ix.docWeight(tfs[i], d)})
		}
		return dst
	}
	// The terms' lists, held locally (up to 16 without allocating).
	type list struct {
		docs, tfs []uint32
		w         float64
		p         int
	}
	var buf [16]list
	var ls []list
	if len(v) <= len(buf) {
		ls = buf[:len(v)]
	} else {
		ls = make([]list, len(v))
	}
	for t, tw := range v {
		ls[t] = list{docs: ix.docs[tw.Term], tfs: ix.tfs[tw.Term], w: tw.Weight}
	}
	for {
		// The next document is the least one under a cursor.
		next, found := uint32(0), false
		for t := range ls {
			l := &ls[t]
			if l.p < len(l.docs) && (!found || l.docs[l.p] < next) {
				next, found = l.docs[l.p], true
			}
		}
		if !found {
			return dst
		}
		var s float64
		matched := false
		for t := range ls {
			l := &ls[t]
			if l.p < len(l.docs) && l.docs[l.p] == next {
				s += l.w * ix.docWeight(l.tfs[l.p], next)
				if l.w > 0 {
					matched = true
				}
				l.p++
			}
		}
		if matched {
			dst = append(dst, Hit{Doc: next, Score: s})
		}
	}
}
