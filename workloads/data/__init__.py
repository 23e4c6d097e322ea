"""What the generators and readers share: the data home, the readers of users' and authors' files,
sizes, embeddings and the topic space."""
