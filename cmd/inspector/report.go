package main

// reportCommand implements `inspector report`.
func reportCommand(args []string) int { return exitUsage }
