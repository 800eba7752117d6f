-- One row per lead (person at a company) of the leads-coffee-roasters pipeline, however many runs found them, and
-- although the `results` sync landed each of its results a second time (results_sync_items, under pipeline
-- results-sync, with the same result_id): every result counts once, by its id, the pipeline's own row preferred.
-- sightings is the number of distinct results that named the lead.
with landed as (
    select result_id, 1 as own, name, job_title, company, email, website
    from {{ source('scrape_etl', 'leads_coffee_roasters_items') }}
    union all
    select s.result_id, 0 as own, s.name, s.job_title, s.company, s.email, s.website
    from {{ source('scrape_etl', 'results_sync_items') }} as s
    where s.result_id in (
        select r.id from {{ source('scrape_etl', 'leads_results') }} as r where r.pipeline = 'leads-coffee-roasters'
    )
),

per_result as (
    select
        landed.*,
        row_number() over (partition by result_id order by own desc) as pick
    from landed
),

keyed as (
    select
        lower(coalesce(email, website, company, name)) as lead_key,
        per_result.*
    from per_result
    where pick = 1
)

select
    lead_key,
    max(name) as name,
    max(job_title) as job_title,
    max(company) as company,
    max(email) as email,
    max(website) as website,
    count(*) as sightings,
    min(result_id) as first_result_id,
    max(result_id) as last_result_id
from keyed
group by lead_key
