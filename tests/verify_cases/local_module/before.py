from graph_helpers import scaled_sum

total = scaled_sum([1.0, 2.0, 3.0])
