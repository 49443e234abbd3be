-- Temporal keeps its persistence and visibility in databases of their own on the same server.
CREATE DATABASE temporal;
CREATE DATABASE temporal_visibility;
