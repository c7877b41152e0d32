"""Each game's own pages beside the shared session page: setup forms, facilitator and projector screens."""
