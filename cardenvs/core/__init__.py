"""Game-independent machinery: random generator, state records, the AEC and batched front ends, registry."""
