"""keltis-cam: the command line that joins all parts."""
