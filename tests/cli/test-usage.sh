#!/bin/bash
echo "test-usage.sh not written yet"; exit 1
