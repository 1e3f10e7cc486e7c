"""Chat models: resolution of model specs, the simulated debater, embeddings."""
