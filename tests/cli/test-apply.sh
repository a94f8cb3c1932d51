#!/bin/bash
echo "test-apply.sh not written yet"; exit 1
