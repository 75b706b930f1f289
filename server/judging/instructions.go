package judging

import "boolpool/server/vocab"

// DefaultInstructions are shown when a project has none of its own for a
// task kind (after QUEST's annotation interfaces, Appendix C).
func DefaultInstructions(kind string) Instructions {
	switch kind {
	case vocab.KindParaphrase:
		return Instructions{
			Text: "Rewrite the templated query as a fluent question a person would ask, keeping its exact meaning: every constraint, and every 'and', 'or' and 'not'. If the query makes no sense, mark it nonsensical instead.",
			Examples: []Example{
				{Query: "Birds of Venezuela but not Birds of Colombia", Label: "Birds found in Venezuela but not in Colombia", Explanation: "Fluent, and keeps the NOT.", Good: true},
				{Query: "Birds of Venezuela but not Birds of Colombia", Label: "Birds of Venezuela and Colombia", Explanation: "Changes the meaning: the NOT is lost.", Good: false},
			},
		}
	case vocab.KindConstraint:
		return Instructions{
			Text: "One constraint, one document: does the document satisfy the constraint? Press y (yes), n (no) or u (unsure: the text does not say). Before answering, click (or mark with space) the sentences that show it: for a yes the supporting sentences, for a no the sentences that show the opposite. Judge only what the document says; your answer is reused by every query with this constraint.",
			Examples: []Example{
				{Query: "Birds of the Venezuelan Andes", Document: "It is endemic to the Venezuelan Andes.", Label: "yes (that sentence as evidence)", Explanation: "The sentence states the constraint.", Good: true},
				{Query: "birds of Colombia", Document: "The Andean tyrannulet is a small passerine bird.", Label: "no", Explanation: "Wrong: nothing says it is absent from Colombia: answer unsure.", Good: false},
			},
		}
	case vocab.KindValidation:
		return Instructions{
			Text: "Compare the paraphrase with the original query. Is it fluent English? Does it mean the same (same constraints, same and/or/not)? Would a person naturally ask it?",
			Examples: []Example{
				{Query: "Films set in Paris that are also 1990s comedy films", Label: "fluent yes · meaning same · natural yes", Explanation: "Paraphrase: '1990s comedies set in Paris'.", Good: true},
				{Query: "Films set in Paris that are also 1990s comedy films", Label: "meaning different", Explanation: "Paraphrase: 'comedies set in Paris' drops the 1990s.", Good: false},
			},
		}
	}
	return Instructions{
		Text: "Read the query and the document. Judge how relevant the document is (0 definitely not … 3 definitely relevant) and whether the document's text gives complete, partial or no evidence. For each constraint of the query, mark the sentences that support it, and say whether it holds for the document. A constraint shown with NOT names a property relevant documents must not have, the excluded property: label the property itself (y the excluded property is present in the document, x it is absent) and mark the sentences that show it is present.",
		Examples: []Example{
			{Query: "Birds of the Venezuelan Andes but not of Colombia", Document: "The rufous-browed tyrannulet is found in the Andes of Venezuela.", Label: "likely relevant · partial evidence", Explanation: "Venezuela is supported; nothing says it is absent from Colombia.", Good: true},
			{Query: "Birds of the Venezuelan Andes but not of Colombia", Document: "The species ranges from Venezuela into Colombia.", Label: "definitely relevant", Explanation: "Wrong: the sentence shows the excluded property (Colombia) is present, so the NOT constraint fails.", Good: false},
		},
	}
}
