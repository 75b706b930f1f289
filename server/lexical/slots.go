package lexical

// Slots numbers a query's candidate documents 0, 1, 2, … in the order they
// are added, over a document-indexed table borrowed from the index (one
// table per concurrent query, reused): a per-query set of candidates costs
// time and memory in proportion to the candidates, not to the collection
// (a dense per-query array is 70 MB of float64 per atom at 8.8M documents).
// Release returns the table; the Slots must not be used after it.
type Slots struct {
	ix   *Index
	slot []int32 // document → slot + 1; 0 = not added
	Docs []uint32
}

// Slots borrows an empty candidate numbering.
func (ix *Index) Slots() *Slots {
	if s, ok := ix.slots.Get().(*Slots); ok {
		return s
	}
	return &Slots{ix: ix, slot: make([]int32, len(ix.docIDs))}
}

// Add gives d a slot if it has none and returns d's slot.
func (s *Slots) Add(d uint32) int {
	if k := s.slot[d]; k > 0 {
		return int(k - 1)
	}
	s.Docs = append(s.Docs, d)
	s.slot[d] = int32(len(s.Docs))
	return len(s.Docs) - 1
}

// Of returns d's slot, or -1 when d was not added.
func (s *Slots) Of(d uint32) int { return int(s.slot[d]) - 1 }

// Len is the number of documents added.
func (s *Slots) Len() int { return len(s.Docs) }

// Release clears the numbering (in time proportional to its documents) and
// returns it to the index.
func (s *Slots) Release() {
	for _, d := range s.Docs {
		s.slot[d] = 0
	}
	s.Docs = s.Docs[:0]
	s.ix.slots.Put(s)
}
