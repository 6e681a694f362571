"""Names typed by the noun after them (kg/extract/relations.py:type_by_head)."""

import pytest


@pytest.fixture(scope="module")
def extractor(rules_extractor):
    """These tests pin the rules, so they run without the span model."""
    return rules_extractor


def spans(extractor, text):
    doc = extractor.nlp(text)
    return [(s.text, s.label_) for s in doc.spans["kg"]]


@pytest.mark.parametrize("text, expected", [
    ("We evaluate on FooBar, BazQux and CorgeNet datasets.",
     [("FooBar", "Dataset"), ("BazQux", "Dataset"), ("CorgeNet", "Dataset")]),
    ("We evaluate on the recent World of Bits benchmark.", [("World of Bits", "Dataset")]),
    ("It outperforms other methods in DOPE benchmark.", [("DOPE", "Dataset")]),
])
def test_names_before_dataset_nouns(extractor, text, expected):
    assert spans(extractor, text) == expected


def test_sentence_opening_capitals_are_no_names(extractor):
    assert spans(extractor, "Extensive benchmarks show gains.") == []


@pytest.mark.parametrize("text, expected", [
    ("It lags behind tailored methods for tasks like forecasting, imputation and anomaly detection.",
     [("forecasting", "Task"), ("imputation", "Task"), ("anomaly detection", "Task")]),
    ("We show gains in forecasting and imputation tasks.", [("forecasting", "Task"), ("imputation", "Task")]),
    ("We study regression, which is hard.", []),
])
def test_one_word_tasks_in_lists(extractor, text, expected):
    assert spans(extractor, text) == expected


@pytest.mark.parametrize("text, expected", [
    ("We analyse a popular protein design model, FoldMPNX.", [("FoldMPNX", "Model")]),
    ("We fine-tune the FoldMPNX model on new data.", [("FoldMPNX", "Model")]),
])
def test_names_of_models(extractor, text, expected):
    assert [x for x in spans(extractor, text) if x[0] == "FoldMPNX"] == expected


@pytest.mark.parametrize("text, name", [
    ("We report results on MNIST, BA-Shapes and Tree-Cycles.", "BA-Shapes"),
    ("We test on ImageNet or QuuxSet.", "QuuxSet"),
    ("We evaluate on PartImageNet as well.", "PartImageNet"),  # built on a known dataset's name
    ("Results on DVS-CIFAR10 are strong.", "DVS-CIFAR10"),
])
def test_names_listed_with_or_built_on_datasets_are_datasets(extractor, text, name):
    assert (name, "Dataset") in spans(extractor, text)


@pytest.mark.parametrize("text", [
    "We compare FooNet, BarNet and BazNet.",  # no dataset in the list
    "We propose a model. On ImageNet, FooNet reaches 80% top-1 accuracy.",  # a comma joins clauses
    "We evaluate on ImageNet, and FooNet improves accuracy.",  # the item opens a clause
    "We propose MNISTNet, a network.",  # a model built on a dataset's name
])
def test_names_that_are_not_listed_datasets(extractor, text):
    found = spans(extractor, text)
    assert not [name for name, label in found if label == "Dataset" and name in ("FooNet", "BarNet", "MNISTNet")]
    assert any(name in ("FooNet", "BarNet", "MNISTNet") for name, _ in found)  # found, as something else
