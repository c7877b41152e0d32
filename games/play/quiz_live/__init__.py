"""The live quiz in class: a built quiz asked on the projector and answered on phones."""
